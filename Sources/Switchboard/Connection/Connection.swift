import SwitchboardCore
public import Foundation
public import SocketIOProtocol

/// A live connection as feature code sees it: no sockets, no protocol, just events and requests.
///
/// Implementations: Socket.IO (``SocketIODriver``), plain WebSocket (``WebSocketDriver``) and an
/// in-memory fake for tests (`InMemoryDriver`, in `SwitchboardTesting`), all behind one state
/// machine and one offline command queue. Get one from a ``ConnectionManager`` lease or a ``ConnectionBuilder``.
///
/// Operations depend on ``state`` (see ``ConnectionState``): `send` and `request` made while not
/// connected are queued and run first-in first-out once connected; in `released` every operation
/// throws ``ConnectionError``.
public protocol Connection: AnyObject, Sendable {
    /// The server this connection talks to.
    var url: URL { get }
    /// Identifies this connection instance (stable for its whole life).
    var id: ConnectionID { get }
    /// The current state.
    var state: ConnectionState { get }
    /// The current state, then every change, until the connection is released.
    func stateChanges() -> AsyncStream<ConnectionState>

    /// Opens the connection (`created` or `disconnected` → `connected`).
    func connect() async throws
    /// Closes the connection (→ `disconnected`); queued commands stay queued.
    func disconnect() async throws
    /// Closes the connection the way a lost connection closes (→ `disconnected`): a server with
    /// session recovery keeps the session, so the next ``connect()`` gets what was sent meanwhile
    /// (``recovered``). For an app going to the background; queued commands stay queued.
    func suspend() async throws
    /// Ends the connection for good (`disconnected` → `released`; from any other state it throws
    /// ``ConnectionError/illegalTransition(from:to:)``). Every queued command fails with
    /// ``ConnectionError/released``. Pooled connections are released by the ``ConnectionKeeper``.
    func release() async throws
    /// Sends an event without waiting for a reply; queued while not connected.
    func send(_ event: String, _ payload: JSONValue) async throws
    /// Sends an event and waits for the server's reply, at most `timeout` (counted from the call,
    /// also while queued).
    func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response
    /// Every payload of `event` the server sends from now on; subscriptions made before the
    /// connection is up take effect when it is.
    func events(named event: String) -> AsyncStream<JSONValue>
    /// Whether the last time the connection became ``ConnectionState/connected`` it resumed the
    /// server's session: `true` — the events the server sent during the outage come through
    /// ``events(named:)`` once each, in order, ahead of newer ones: on a Socket.IO connection
    /// before the state became `connected`, on a failover channel (whose server resends them
    /// after its resume) possibly a moment after;
    /// `false` — a new session: what was sent meanwhile is lost, so resynchronise; `nil` — never
    /// connected, or the transport has no session recovery (plain WebSocket, in memory).
    /// Read it when ``stateChanges()`` yields `connected`.
    var recovered: Bool? { get }
    /// The server's requests for `event`: events that ask for an answer, which feature code gives
    /// with ``IncomingRequest/reply(_:)``.
    func requests(named event: String) -> AsyncStream<IncomingRequest>
    /// Why the connection last failed to open or was lost, in words for a status display; `nil`
    /// before any failure and again after a successful connect. Read it when
    /// ``stateChanges()`` yields `disconnected`. The default is `nil`.
    var lastError: String? { get }
    /// The transport carrying the connection now (`"websocket"`, `"polling"`, `"Socket.IO"` for a failover channel, …),
    /// for a status display; `nil` while not connected or when the connection does not say.
    /// The default is `nil`.
    var transport: String? { get }
    /// ``transport`` now, then again after each state change and each change of transport
    /// (a Socket.IO upgrade, a failover switch), until the connection is released. The default
    /// follows ``stateChanges()``.
    func transportChanges() -> AsyncStream<String?>
}

extension Connection {
    /// Unknown by default: the connection does not say.
    public var lastError: String? { nil }

    /// Unknown by default: the connection does not say.
    public var transport: String? { nil }

    /// ``transport`` after each state change, until the connection is released.
    public func transportChanges() -> AsyncStream<String?> {
        AsyncStream.relaying(stateChanges()) { [weak self] _ in .some(self?.transport) }
    }
}

/// Identifies one ``Connection`` instance.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The raw number, unique within the process.
    public let rawValue: UInt64

    /// An identifier with this raw number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A one-line description, for logs.
    public var description: String { "connection-\(rawValue)" }
}

/// The reply to a ``Connection/request(_:_:timeout:)``: the values the server acknowledged with.
public struct Response: Sendable, Hashable {
    /// Every value of the reply, in order (Socket.IO acks may carry several).
    public var values: [JSONValue]

    /// A reply with these values.
    public init(values: [JSONValue]) { self.values = values }

    /// The first value, or `.null` for an empty reply.
    public var value: JSONValue { values.first ?? .null }
}

extension Connection {
    /// A connection without session recovery suspends by disconnecting.
    public func suspend() async throws {
        try await disconnect()
    }

    /// `nil`: a connection that does not track session recovery.
    public var recovered: Bool? { nil }

    /// No requests: a connection that does not carry them (the sequence ends at once).
    public func requests(named event: String) -> AsyncStream<IncomingRequest> {
        AsyncStream { $0.finish() }
    }

    /// Sends an event and waits for the reply, at most the configuration's `requestTimeout`
    /// (20 s for connections that are not a ``DriverConnection``).
    public func request(_ event: String, _ payload: JSONValue = .null) async throws -> Response {
        let timeout = (self as? DriverConnection)?.configuration.requestTimeout ?? .seconds(20)
        return try await request(event, payload, timeout: timeout)
    }
}
