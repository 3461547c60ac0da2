public import Foundation
public import Logging

extension Manager {
    /// How a manager connects. Defaults follow socket.io's JavaScript client.
    public struct Configuration: Sendable {
        /// The Engine.IO path on the server.
        public var path: String = "/socket.io/"
        /// Extra query parameters on every Engine.IO request.
        public var query: [URLQueryItem] = []
        /// Extra HTTP headers on every request (e.g. `Authorization`, `User-Agent`, `Cookie`).
        public var extraHeaders: [(name: String, value: String)] = []
        /// The Engine.IO protocol revision.
        public var version: EngineIOVersion = .v4
        /// How long the Engine.IO handshake may take (socket.io's `timeout`, 20 s).
        public var connectTimeout: Duration = .seconds(20)
        /// The acknowledgement timeout `emitWithAck` uses when given none.
        public var defaultAckTimeout: Duration = .seconds(20)
        /// The largest message accepted from the server, in bytes.
        public var maxInboundMessageSize: Int = 16 << 20
        /// How many emits a socket holds while not connected; past it `emit` throws.
        public var sendBufferLimit: Int = 10_000
        /// Where handlers run; `nil` means a new serial queue per manager.
        public var handlerExecutor: HandlerExecutor?
        /// The clock for timers (heartbeat, timeouts); inject a test clock in tests.
        public var clock: any Clock<Duration> = ContinuousClock()
        /// Where the manager logs; silent unless the app passes its own logger.
        public var logger = Logger(label: "switchboard.socketio", factory: { _ in SwiftLogNoOpLogHandler() })

        public init() {}
    }
}
