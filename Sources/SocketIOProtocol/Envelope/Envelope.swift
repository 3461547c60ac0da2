/// One message on a plain WebSocket: a small JSON object with a `type`, shared by the client
/// (Switchboard's `WebSocketDriver`) and the embedded server (`EnvelopeSocket`), and meant to
/// carry the failover channel's sequence numbers (SPEC.md part E) too.
///
/// One envelope per WebSocket text message; every field but `type` depends on the type:
///
/// | type | fields | meaning |
/// |---|---|---|
/// | `event` | `event`, `data`?, `seq`? | a message that wants no answer |
/// | `request` | `event`, `data`?, `id`, `seq`? | a message that wants a `reply` (or `error`) with the same `id` |
/// | `reply` | `id`, `data`? (array), `seq`? | the answer to request `id`: its values, in order |
/// | `error` | `id`?, `message` | request `id` failed (or, without `id`, the peer rejected something) |
/// | `ack` | `seq` | the receiver holds every message up to and including `seq` |
/// | `resume` | `channel`, `received` | open (`received` 0) or resume reliable channel `channel` on this transport; the sender has delivered every message up to `received` |
/// | `resumed` | `channel`, `received` | the answer to `resume`: the channel is here; its side has delivered up to `received` |
///
/// A reliable channel (SPEC.md part E) numbers its `event`, `request` and `reply` envelopes with
/// `seq` (1, 2, … per direction, across transports) and acknowledges with `ack`; after a
/// `resume`/`resumed` exchange on a new transport, each side sends again, in order, what the other
/// has not delivered (``ReliableSender``, ``ReliableReceiver``).
///
/// ```json
/// {"type":"event","event":"news","data":{"title":"hi"},"seq":12}
/// {"type":"request","event":"echo","data":"hello","id":7}
/// {"type":"reply","id":7,"data":["hello"]}
/// {"type":"error","id":7,"message":"no handler for echo"}
/// {"type":"ack","seq":12}
/// ```
///
/// Rules: `data` missing means `null` (`[]` for a reply); `id` and `seq` are integers from 0 to
/// 2^53 − 1 (exact in every JSON implementation); `event` is a non-empty string; members this
/// table does not name are ignored, so a newer peer may add some. Binary values have no JSON
/// form: they are written as `{"base64":"…"}` objects and arrive as such.
///
/// ```swift
/// let text = Envelope.request(name: "echo", data: "hello", id: 7).text
/// let back = try Envelope(parsing: text)   // .request(name: "echo", data: "hello", id: 7, seq: nil)
/// ```
public enum Envelope: Sendable, Hashable {
    /// A message that wants no answer; `seq` numbers it for ordered, exactly-once delivery.
    case event(name: String, data: JSONValue, seq: UInt64? = nil)
    /// A message that wants a ``reply(id:data:)`` or ``error(id:message:)`` with the same `id`.
    case request(name: String, data: JSONValue, id: Int, seq: UInt64? = nil)
    /// The answer to request `id`: its values, in order (Socket.IO acks may carry several);
    /// `seq` numbers it on a reliable channel.
    case reply(id: Int, data: [JSONValue], seq: UInt64? = nil)
    /// Request `id` failed, or (without an `id`) the peer rejected a message; `message` says why.
    case error(id: Int?, message: String)
    /// The receiver holds every numbered message up to and including `seq`.
    case ack(seq: UInt64)
    /// Opens (`received` 0) or resumes reliable channel `channel` on this transport; the sender
    /// has delivered every message of the channel up to `received`.
    case resume(channel: String, received: UInt64)
    /// The answer to ``resume(channel:received:)``: the channel is on this transport, and this
    /// side has delivered up to `received`.
    case resumed(channel: String, received: UInt64)

    /// The `type` member's value.
    public var type: String {
        switch self {
        case .event: "event"
        case .request: "request"
        case .reply: "reply"
        case .error: "error"
        case .ack: "ack"
        case .resume: "resume"
        case .resumed: "resumed"
        }
    }

    /// The largest `id` or `seq` the envelope carries: 2^53 − 1, the last integer a JSON number
    /// (an IEEE double, as JavaScript reads it) holds exactly.
    public static let maxInteger: UInt64 = (1 << 53) - 1
}
