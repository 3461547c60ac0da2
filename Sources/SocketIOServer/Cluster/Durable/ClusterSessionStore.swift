public import SocketIOProtocol

/// A cluster transport that also keeps sessions and a journal where every server can read
/// them, so connection state recovery survives the server a client was on
/// (`SocketIOPostgres`'s `PostgresClusterTransport` keeps both in PostgreSQL).
///
/// With connection state recovery on (``SocketIOServer/Configuration/recovery``) and a cluster
/// adapter over such a transport, every recoverable socket's session (private id, socket id,
/// rooms, ``ServerSocket/data``) is written to the store within about 50 ms of each change
/// (and marked as seen every 2 s), every event recovery replays is
/// published as a numbered cluster message (a direct emit as a broadcast to the socket's own
/// room, as socket.io's recovery stores it), and an offset names, for every server, the last
/// of its numbered messages the client had been sent. A client that reconnects to any server
/// with its private id and offset gets its session back and every event after its offset.
public protocol ClusterSessionStore: ClusterTransport {
    /// Whether this transport keeps sessions (a transport may be configured not to).
    var keepsSessions: Bool { get }

    /// Prepares the store (creates what is missing) and keeps the journal for at least
    /// `retention` (the longest ``ConnectionStateRecovery/maxDisconnectionDuration``).
    func prepareSessions(retention: Duration) async throws

    /// Applies `changes` made by server `owner`, in order. A change to a session another
    /// server has taken since is ignored.
    func writeSessions(_ changes: [ClusterSessionChange], owner: String) async throws

    /// Marks every connected session of `owner` as seen now (a server that dies stops doing
    /// it; its sessions stay recoverable for `maxDisconnectionDuration` after the last time).
    func refreshSessions(owner: String) async throws

    /// Takes session `pid` of `namespace` for server `owner`, unless it was last seen (or
    /// disconnected) longer than `maxAge` ago; returns it as it was, or `nil`.
    func takeSession(pid: String, namespace: String, owner: String, maxAge: Duration) async throws -> TakenClusterSession?

    /// The numbered messages of `namespace` in the journal, oldest first, within `ranges`:
    /// for each origin, those numbered after `after` (or, when `after` is `nil`, written since
    /// `since`) up to `through`. Only messages written within the recovery window (`retention`
    /// of ``prepareSessions(retention:)``): a server stops naming in its offsets an origin
    /// silent for longer than two windows, so an older message must not be replayed as one
    /// the client never had.
    func journal(namespace: String, ranges: [ClusterJournalRange], since: String) async throws -> [ClusterMessage]

    /// The highest number in the journal of each of `origins` (origin tags) in `namespace`,
    /// among the messages written within the recovery window.
    func lastJournaled(namespace: String, origins: [String]) async throws -> [String: UInt64]

    /// The highest number in the journal of every origin (tag) in `namespace`, among the
    /// messages written within the recovery window. A server reads
    /// it once it listens: what is numbered up to there will not reach it live, so a client
    /// recovering on it gets that part from the journal, at once.
    func lastJournaled(namespace: String) async throws -> [String: UInt64]
}

/// One session as the store keeps it.
public struct ClusterSession: Sendable, Hashable {
    /// The private session id.
    public var pid: String
    /// The socket id.
    public var id: String
    /// The namespace.
    public var namespace: String
    /// Its rooms (its own id's included).
    public var rooms: [String]
    /// ``ServerSocket/data``.
    public var data: JSONObject
    /// Where delivery stood when its rooms last changed, as an offset (`nil` when not known: a
    /// row written without it). A client that kept no offset — it had been sent no event it
    /// kept, so it missed every one — is replayed from here: everything addressed to these
    /// rooms after it.
    public var roomsOffset: String?

    /// A session as written.
    public init(pid: String, id: String, namespace: String, rooms: [String], data: JSONObject, roomsOffset: String? = nil) {
        self.pid = pid
        self.id = id
        self.namespace = namespace
        self.rooms = rooms
        self.data = data
        self.roomsOffset = roomsOffset
    }

    /// Rooms, data and ``roomsOffset`` as one JSON object, as the store writes them.
    public var stateJSON: String {
        var object = JSONObject()
        object["rooms"] = .array(rooms.map(JSONValue.string))
        object["data"] = .object(data)
        if let roomsOffset { object["roomsOffset"] = .string(roomsOffset) }
        return JSONValue.object(object).jsonString
    }

    /// Reads rooms, data and ``roomsOffset`` back from ``stateJSON``.
    public init(pid: String, id: String, namespace: String, stateJSON: String) throws(ClusterMessageError) {
        guard let value = try? JSONValue(parsing: stateJSON), case .object(let object) = value else {
            throw .unreadable("session state is not a JSON object")
        }
        guard case .array(let rooms)? = object["rooms"] else { throw .missing("rooms") }
        var data = JSONObject()
        if case .object(let stored)? = object["data"] { data = stored }
        self.init(
            pid: pid, id: id, namespace: namespace, rooms: rooms.compactMap(\.stringValue), data: data,
            roomsOffset: object["roomsOffset"]?.stringValue
        )
    }
}

/// A change to one session, as a server sends it to the store.
public enum ClusterSessionChange: Sendable, Hashable {
    /// The session is connected here, as it is now (written whole).
    case connected(ClusterSession)
    /// The session's connection dropped; it is kept for recovery.
    case disconnected(pid: String)
    /// The session ended for good.
    case removed(pid: String)

    /// The session's private id.
    public var pid: String {
        switch self {
        case .connected(let session): session.pid
        case .disconnected(let pid), .removed(let pid): pid
        }
    }
}

/// A session taken over for a recovering client.
public struct TakenClusterSession: Sendable, Hashable {
    /// The session as it was last written.
    public var session: ClusterSession
    /// The server that had it.
    public var owner: String
    /// When it was created, in the store's own notation (passed back to
    /// ``ClusterSessionStore/journal(namespace:ranges:since:)``).
    public var createdAt: String

    /// A taken session.
    public init(session: ClusterSession, owner: String, createdAt: String) {
        self.session = session
        self.owner = owner
        self.createdAt = createdAt
    }
}

/// A stretch of one origin's numbered messages to read back from the journal.
public struct ClusterJournalRange: Sendable, Hashable {
    /// The origin's tag (the first 8 characters of its uid).
    public var origin: String
    /// Numbers after this one; `nil`: every message written since the session was created.
    public var after: UInt64?
    /// Up to and including this number.
    public var through: UInt64

    /// A range.
    public init(origin: String, after: UInt64?, through: UInt64) {
        self.origin = origin
        self.after = after
        self.through = through
    }
}
