import Foundation
import FuzzSupport
import SocketIOProtocol

/// Any bytes as a plain-WebSocket envelope. One that parses must parse again, unchanged, from
/// its text and from its JSON value. The selector byte is part of the text here.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let envelope = try? Envelope(parsing: Data.slice(of: UnsafeBufferPointer(start: data, count: size))) else { return 0 }
    let text = envelope.text
    invariant((try? Envelope(parsing: text)) == envelope.afterWriting, "\(envelope) → \(text)")
    invariant((try? Envelope(json: envelope.jsonValue)) == envelope, "\(envelope) → \(envelope.jsonValue)")
    return 0
}

extension Envelope {
    /// The envelope as it reads back from its text (see ``JSONValue/afterWriting``).
    var afterWriting: Envelope {
        switch self {
        case .event(let name, let data, let seq): .event(name: name, data: data.afterWriting, seq: seq)
        case .request(let name, let data, let id, let seq):
            .request(name: name, data: data.afterWriting, id: id, seq: seq)
        case .reply(let id, let data, let seq): .reply(id: id, data: data.map(\.afterWriting), seq: seq)
        case .error, .ack, .resume, .resumed: self
        }
    }
}
