package import NIOCore
import NIOPosix
package import SwitchboardCore

extension WebSocketClientChannel {
    /// Where to connect and how.
    package struct Configuration: Sendable {
        /// The server: TLS (`wss`, verified against ``trustRoots``) or not, host and port.
        package var address: ServerAddress
        /// The request target of the upgrade request: path and query (`/ws?token=…`).
        package var target: String
        /// Extra request headers, sent as given; no `Origin` unless listed here.
        package var headers: [(String, String)]
        /// The largest message accepted from the server, in bytes (larger ones end the connection).
        package var maxMessageSize: Int
        /// Which certificates a secure connection trusts.
        package var trustRoots: TrustRoots
        /// How long the TCP connect may take.
        package var connectTimeout: TimeAmount
        /// How long the whole opening (TCP, TLS and the upgrade) may take; `nil` for no bound
        /// beyond ``connectTimeout``.
        package var openTimeout: TimeAmount?
        /// The event loops to run on: Network.framework's on Apple platforms, NIO's sockets group
        /// elsewhere (``TransportStack/defaultGroup``).
        package var group: any EventLoopGroup
        /// How long a fence (``WebSocketClientChannel/sendAfterPeerRead(_:)``) waits for the
        /// peer's pong before writing what it holds anyway (a peer that never answers pings).
        package var fenceTimeout: TimeAmount = .seconds(2)
        /// How long the client's close waits for the server's answering close before it closes
        /// the connection itself (RFC 6455 §7.1.1).
        package var closeHandshakeTimeout: TimeAmount = .seconds(1)
        /// Keep-alive and, on Apple platforms, the paths a connection may use.
        package var network = NetworkSettings()
        /// The TLS of a sockets bootstrap (NIOSSL); tests put a provider of their own.
        package var socketsTLS: TransportStack.SocketsTLS = TransportStack.nioSSL
        /// The bootstrap and TLS of a connection (see ``TransportStack``).
        package var stack: TransportStack {
            var stack = TransportStack(connectTimeout: connectTimeout, settings: network)
            stack.socketsTLS = socketsTLS
            return stack
        }
        /// The process's file descriptors (a connection is refused when it would eat into the
        /// reserve); the process-wide budget unless a test gives its own.
        package var descriptors: DescriptorBudget = .shared

        /// A configuration with the engine's defaults: 20 s to connect, no bound on the rest.
        package init(
            address: ServerAddress,
            target: String,
            headers: [(String, String)] = [],
            maxMessageSize: Int,
            trustRoots: TrustRoots = .system,
            connectTimeout: TimeAmount = .seconds(20),
            openTimeout: TimeAmount? = nil,
            group: (any EventLoopGroup)? = nil
        ) {
            self.address = address
            self.target = target
            self.headers = headers
            self.maxMessageSize = maxMessageSize
            self.trustRoots = trustRoots
            self.connectTimeout = connectTimeout
            self.openTimeout = openTimeout
            self.group = group ?? TransportStack.defaultGroup
        }
    }

    /// What the channel reports, in order: at most one ``opened``, then messages, then exactly one
    /// ``ended(_:)`` (also when it never opened).
    package enum Event: Sendable {
        /// The upgrade completed: messages flow both ways.
        case opened
        /// The server sent a message.
        case message(WebSocketMessage)
        /// The connection is over; nothing follows.
        case ended(End)
    }

    /// How a connection ended.
    package enum End: Sendable, Hashable, CustomStringConvertible {
        /// The server sent a close frame (with its status code, when it gave one), or the
        /// connection ended cleanly, or ``WebSocketClientChannel/close(code:)`` was called.
        case closed(code: UInt16?)
        /// It failed: could not connect, TLS, the upgrade, or a network error.
        case failed(Failure)

        package var description: String {
            switch self {
            case .closed(nil): "the connection closed"
            case .closed(let code?): "the server closed the WebSocket (code \(code))"
            case .failed(let failure): failure.description
            }
        }
    }

    /// Why a connection failed.
    package enum Failure: Sendable, Hashable, CustomStringConvertible {
        /// The TLS context could not be made (for example an unreadable trust root file).
        case tlsSetup(String)
        /// The TCP connection could not be made.
        case cannotConnect(host: String, port: Int, String)
        /// The server did not switch protocols: its status, its body's start (Engine.IO's reason).
        case upgradeRefused(status: Int, body: String)
        /// The upgrade handshake broke (bad `Sec-WebSocket-Accept`, TLS failure, …).
        case handshakeFailed(String)
        /// The opening took longer than ``Configuration/openTimeout``.
        case openTimedOut
        /// Not tried: `open` of the process's `limit` file descriptors are open, and a reserve
        /// is kept free so the process itself keeps working (raise `ulimit -n`).
        case outOfDescriptors(open: Int, limit: Int)
        /// The open connection failed (reset, TLS error, …).
        case network(String)
        /// The server broke RFC 6455 (`code`: 1002 protocol error, 1007 invalid UTF-8, 1009 a
        /// message over the limit): the client closed with that status.
        case protocolViolation(code: UInt16, String)

        package var description: String {
            switch self {
            case .tlsSetup(let detail): "TLS setup failed: \(detail)"
            case .cannotConnect(let host, let port, let detail): "cannot connect to \(host):\(port): \(detail)"
            case .upgradeRefused(let status, let body): "the server refused the WebSocket upgrade: HTTP \(status) \(body.prefix(200))"
            case .handshakeFailed(let detail): "WebSocket handshake failed: \(detail)"
            case .openTimedOut: "the WebSocket did not open in time"
            case .outOfDescriptors(let open, let limit):
                "out of file descriptors: \(open) of the process's \(limit) are open (the rest kept in reserve); raise the limit (ulimit -n) or close connections"
            case .network(let detail): detail
            case .protocolViolation(let code, let detail): "the server broke the WebSocket protocol (\(code)): \(detail)"
            }
        }
    }
}
