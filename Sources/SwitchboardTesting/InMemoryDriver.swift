public import SocketIOProtocol
public import Switchboard

/// A ``ConnectionDriver`` whose server is an ``InMemoryServer``: the fake behind tests and
/// previews, with the same connection, queue and state machine as the real technologies.
///
/// ```swift
/// let server = InMemoryServer()
/// let connection = DriverConnection(configuration: configuration, driver: InMemoryDriver(server: server))
/// ```
public final class InMemoryDriver: ConnectionDriver {
    /// The server this driver talks to.
    public let server: InMemoryServer
    private let link: UInt64

    /// A driver for `server` (not open yet).
    public init(server: InMemoryServer) {
        self.server = server
        self.link = server.newLink()
    }

    /// Connects to the in-memory server (which may refuse, as set by the test).
    public func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
        try await server.open(link: link, onEvent: onEvent)
    }

    /// Leaves the in-memory server.
    public func close() async {
        server.close(link: link)
    }

    /// Hands `event` to the in-memory server.
    public func send(_ event: String, _ payload: JSONValue) async throws {
        _ = try server.receive(InMemoryServer.Message(kind: .send, event: event, payload: payload), link: link)
    }

    /// Asks the in-memory server and waits for its answer: a request nobody handles waits until
    /// the link closes or the caller is cancelled (the connection keeps the deadline, `timeout`,
    /// on its own clock).
    public func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
        let handler = try server.receive(InMemoryServer.Message(kind: .request, event: event, payload: payload), link: link)
        guard let handler else { return try await server.waitUnanswered(link: link) }
        return Response(values: [try await handler(payload)])
    }
}

extension ConnectionFactory where Self == DriverConnectionFactory {
    /// Connections to `server`, in memory: for tests and previews.
    public static func inMemory(_ server: InMemoryServer, clock: any Clock<Duration> = ContinuousClock()) -> DriverConnectionFactory {
        DriverConnectionFactory(clock: clock) { _ in InMemoryDriver(server: server) }
    }
}
