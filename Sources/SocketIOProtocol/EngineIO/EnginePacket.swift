public import Foundation

/// One Engine.IO packet.
///
/// Engine.IO carries opaque `message`s (Socket.IO packets ride in them) and the control packets
/// of its own handshake, heartbeat and upgrade. On the wire a packet is its type digit followed
/// by its data; binary data exists only for messages.
public enum EnginePacket: Sendable, Hashable {
    /// `0`: the server's handshake; the data is the handshake JSON (see ``EngineHandshake``).
    case open(String)
    /// `1`: close this session.
    case close
    /// `2`: heartbeat probe; data is empty, or `probe` during an upgrade.
    case ping(String)
    /// `3`: heartbeat answer; data is empty (or echoes the ping's), `probe` during an upgrade.
    case pong(String)
    /// `4`: an application message in text.
    case message(String)
    /// A binary application message.
    case binaryMessage(Data)
    /// `5`: the client switches to the probed transport.
    case upgrade
    /// `6`: an empty packet the server uses to release a pending poll.
    case noop

    /// The packet type digit.
    public var typeDigit: UInt8 {
        switch self {
        case .open: 0
        case .close: 1
        case .ping: 2
        case .pong: 3
        case .message, .binaryMessage: 4
        case .upgrade: 5
        case .noop: 6
        }
    }
}
