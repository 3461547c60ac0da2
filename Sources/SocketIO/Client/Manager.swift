import SwitchboardCore
public import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import WebSocketClient
import SocketIOProtocol

/// One connection to a Socket.IO server, shared by the sockets of its namespaces.
///
/// A manager owns one Engine.IO session and multiplexes any number of namespaces over it.
/// It opens the session when a socket connects and closes it when the last socket leaves.
///
/// ```swift
/// let manager = try Manager(url: URL(string: "http://localhost:3000")!)
/// let chat = manager.socket(namespace: "/chat", auth: .static(["token": "secret"]))
/// chat.on("message") { event in print(event.items) }
/// try await chat.connect()
/// try chat.emit("message", "hello")
/// ```
public final class Manager: Sendable {
    /// The server URL.
    public let url: URL
    /// The configuration the manager was made with.
    public let configuration: Configuration
    /// What the manager does behind its API: the sessions, reconnection, the network path.
    let connection: ManagerConnection
    private let loopExecutor: EventLoopTaskExecutor

    /// A manager for the server at `url` (`http`, `https`, `ws` or `wss`).
    ///
    /// - Throws: ``SocketIOError/invalidURL(_:)`` for another URL, ``SocketIOError/invalidHeader(_:)``
    ///   for an extra header that cannot be sent.
    public init(url: URL, configuration: Configuration = Configuration()) throws(SocketIOError) {
        self.url = url
        self.configuration = configuration
        let endpoint = try EngineEndpoint(url: url, path: configuration.path, query: configuration.query)
        if let problem = HTTPHeaderField.problem(in: configuration.extraHeaders) { throw .invalidHeader(problem) }
        // The platform's loops: Network.framework's on Apple platforms (as the polling requests'), sockets elsewhere.
        let eventLoop = TransportStack.defaultGroup.next()
        self.loopExecutor = EventLoopTaskExecutor(eventLoop)
        self.connection = ManagerConnection(url: url, configuration: configuration, endpoint: endpoint, eventLoop: eventLoop)
        Self.live.add(self)
    }

    /// One event (or a read) of the manager's state (see ``ManagerConnection/transition(_:)``).
    func transition<T>(_ event: (inout ManagerState) -> T) -> T {
        connection.transition(event)
    }

    /// The thread this manager's WebSocket reads and writes on, as a task executor. Run the code
    /// that emits and awaits acknowledgements with it preferred —
    /// `await withTaskExecutorPreference(manager.taskExecutor) { … }` — and an `emit` writes
    /// without a hop to another thread, and an acknowledgement resumes the caller on the thread
    /// that received it: the fewest context switches (see the README's performance notes). The
    /// code then shares that thread with the connection's I/O: keep it from blocking. Long-polling's
    /// requests run on the same loop.
    public var taskExecutor: any TaskExecutor { loopExecutor }

    deinit {
        Self.live.remove(ObjectIdentifier(self))
    }

    /// The namespace ``socket(namespace:auth:)`` opens when given none: the one the URL's path
    /// names (`http://host:3000/chat` → `/chat`, as socket.io's `io(url)`), else `/`.
    public var defaultNamespace: String { SocketNamespace.named(by: url) ?? "/" }

    /// The socket for `namespace`, made on first use; the same instance afterwards.
    ///
    /// - Parameters:
    ///   - namespace: the namespace (a missing leading slash is added); by default the one the
    ///     URL's path names, else `/` (``defaultNamespace``). A manager multiplexes namespaces,
    ///     so one given here is opened whatever the URL's path says.
    ///   - auth: the CONNECT auth payload, used when the socket is first made.
    public func socket(namespace: String? = nil, auth: SocketAuth = .none) -> Socket {
        let namespace = namespace.map(SocketNamespace.normalized) ?? defaultNamespace
        return transition { state in
            state.socket(namespace) { Socket(manager: self, namespace: namespace, auth: auth, version: $0) }
        }
    }

    /// The Engine.IO handshake of the current session, if one is open.
    public var handshake: EngineHandshake? {
        transition { $0.engine }?.handshake
    }

    /// Disconnects every socket and closes the session.
    public func disconnect() {
        let sockets = transition { $0.sockets.all }
        for socket in sockets { socket.disconnect() }
        connection.closeEngine()
    }

    /// Disconnects every socket and returns once the connection is closed, so everything emitted
    /// before has reached the server (use it before a process exits). Every async sequence
    /// obtained from the manager and its sockets before the call ends. A socket's `connect()`
    /// opens the manager again; sequences obtained after the close follow it.
    ///
    /// Events emitted just before are not lost to a server that drops events read together with
    /// the DISCONNECT (socket.io's Node server does): the DISCONNECT waits until the server has
    /// read everything before it. Bounded: the wait for that confirmation takes at most 2 s.
    public func close() async {
        let (sockets, engine) = transition { ($0.sockets.all, $0.engine) }
        for socket in sockets { socket.disconnect() }
        connection.closeEngine()
        // The sockets no longer keep each other and the manager alive (see `SocketTable`).
        transition { $0.sockets.letGoAll() }
        await engine?.closeAndWait()
        let observers = transition { $0.observers.takeCurrent() }
        for observer in observers { observer.finish() }
        for socket in sockets { socket.finishStreams() }
    }

    /// The manager's events (`open`, `ping`, `close`, `error`) from now on, until the next
    /// ``close()``.
    public var events: AsyncStream<ManagerEvent> {
        observerStream(of: connection, \.inner, \.observers)
    }

    /// Runs `work` on the handler executor after everything already queued there.
    public func runOnHandlerExecutor(_ work: @escaping @Sendable () -> Void) {
        connection.handlers.run(work)
    }

    /// The Engine.IO revision of the current (or last) session: with `.auto`, what was negotiated.
    public var engineIOVersion: EngineIOVersion { transition { $0.machine.version } }

    /// The transport carrying the session now, if one is open: the one it opened on, WebSocket
    /// once the manager has heard of the upgrade (the `upgrade` event comes with it).
    public var transport: EngineTransportKind? {
        transition { $0.engine == nil ? nil : $0.machine.sessionTransport }
    }

    /// The network path the manager last acted on (nil before its first session, or with no
    /// monitor).
    public var networkPath: NetworkPath? { transition { $0.lastPath } }
}
