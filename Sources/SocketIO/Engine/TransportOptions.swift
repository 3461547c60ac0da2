import Foundation

/// A way Engine.IO carries packets.
public enum EngineTransportKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// HTTP long-polling: works through proxies that block WebSocket.
    case polling
    /// One WebSocket.
    case websocket

    /// A one-line description, for logs.
    public var description: String { rawValue }
}

/// Which Engine.IO revision to speak.
public enum EngineIOVersionChoice: Sendable, Hashable {
    /// Only this revision; a server that does not speak it gives
    /// ``SocketIOError/versionMismatch(client:server:)``.
    case exactly(EngineIOVersion)
    /// Try v4; when the server refuses it, retry with v3. With WebSocket only, the refusal is
    /// the upgrade's 400 and its body (python-socketio 4.x, or a socket.io server that speaks
    /// v3 only); a server that does not check the revision (socket.io 2.x) is found out only over
    /// polling (its handshake comes back in v3's payload format).
    case auto

    /// Engine.IO v4 (socket.io 3.x/4.x servers).
    public static let v4 = EngineIOVersionChoice.exactly(.v4)
    /// Engine.IO v3 (socket.io 2.x servers, and newer ones with `allowEIO3`).
    public static let v3 = EngineIOVersionChoice.exactly(.v3)

    /// The revision to try first.
    var first: EngineIOVersion {
        switch self {
        case .exactly(let version): version
        case .auto: .v4
        }
    }
}

/// An HTTP proxy for the polling transport (see the README: WebSocket does not use it, so a
/// manager with a proxy stays on polling).
public struct HTTPProxy: Sendable, Hashable {
    /// The proxy's host name or address.
    public var host: String
    /// The proxy's port.
    public var port: Int

    /// The proxy at `host`:`port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }
}
