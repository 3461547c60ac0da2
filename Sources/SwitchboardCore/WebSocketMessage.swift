public import Foundation

/// One WebSocket message, client or server side: text, or binary. (Engine.IO sends exactly one
/// packet per message; the failover envelope travels as text.)
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (UTF-8 on the wire).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The text of a text message; `nil` for a binary one.
    public var textPayload: String? {
        switch self {
        case .text(let text): text
        case .binary: nil
        }
    }
}
