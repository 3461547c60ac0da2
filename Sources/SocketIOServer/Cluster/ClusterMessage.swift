public import SocketIOProtocol

/// One message between the servers of a cluster, in the wire format of socket.io's cluster
/// adapters (`ClusterAdapterWithHeartbeat` in socket.io-adapter, which
/// `@socket.io/postgres-adapter` publishes): `{"uid":…,"nsp":…,"type":…,"data":{…}}`.
///
/// `uid` names the sending server (16 hex digits, new each start); `nsp` the namespace;
/// `data` depends on the ``ClusterMessageType``. A ``ClusterTransport`` carries these between
/// processes; ``ClusterMessage/payload`` reads `data` as a typed ``ClusterPayload``.
public struct ClusterMessage: Sendable, Hashable {
    /// The sending server's id.
    public var uid: String
    /// The namespace it concerns, e.g. `/`.
    public var namespace: String
    /// What it is.
    public var type: ClusterMessageType
    /// The type's fields, as sent (absent for heartbeats and `ADAPTER_CLOSE`).
    public var data: JSONObject?
    /// Our extension: the sender's count of its messages in this namespace (1, 2, 3, …), as a
    /// top-level `seq` member that socket.io's adapters ignore. Receivers drop a message they
    /// already had (a retried publish, a journal catch-up) and report a gap as lost messages;
    /// `nil` for messages from servers that do not number theirs (socket.io's).
    public var sequence: UInt64?

    /// A message as it goes on the wire.
    public init(uid: String, namespace: String, type: ClusterMessageType, data: JSONObject? = nil, sequence: UInt64? = nil) {
        self.uid = uid
        self.namespace = namespace
        self.type = type
        self.data = data
        self.sequence = sequence
    }

    /// The tag naming its sender in recovery offsets and the journal: the first 8 characters
    /// of ``uid`` (sessions kept in the cluster, ``ClusterSessionStore``).
    public var originTag: String { String(uid.prefix(8)) }

    /// The message as socket.io's adapters write it, member order included (`type`, `data`,
    /// then `uid` and `nsp`, which `publishAndReturnOffset` adds to the message last).
    public var json: JSONValue {
        var object = JSONObject()
        object["type"] = .number(Double(type.rawValue))
        if let data { object["data"] = .object(data) }
        object["uid"] = .string(uid)
        object["nsp"] = .string(namespace)
        if let sequence { object["seq"] = .number(Double(sequence)) }
        return .object(object)
    }

    /// Reads a message from its JSON (or MessagePack-bridged) value.
    ///
    /// - Throws: ``ClusterMessageError`` when a required member is missing or of the wrong type,
    ///   or the type number is unknown.
    public init(json: JSONValue) throws(ClusterMessageError) {
        guard case .object(let object) = json else { throw .notAnObject }
        guard case .string(let uid)? = object["uid"] else { throw .missing("uid") }
        guard case .string(let namespace)? = object["nsp"] else { throw .missing("nsp") }
        guard let number = object["type"]?.intValue else { throw .missing("type") }
        guard let type = ClusterMessageType(rawValue: number) else { throw .unknownType(number) }
        var data: JSONObject?
        switch object["data"] {
        case nil, .null?: data = nil
        case .object(let value)?: data = value
        default: throw .wrongType("data")
        }
        var sequence: UInt64?
        if let value = object["seq"] {
            guard case .number(let number) = value, number >= 1, number <= 9_007_199_254_740_991, number.rounded() == number else {
                throw .wrongType("seq")
            }
            sequence = UInt64(number)
        }
        self.init(uid: uid, namespace: namespace, type: type, data: data, sequence: sequence)
    }
}

/// The message types of socket.io's cluster adapters, with their numbers on the wire.
public enum ClusterMessageType: Int, Sendable, Hashable, CaseIterable {
    /// A server joined and asks the others to say they are there.
    case initialHeartbeat = 1
    /// A server is alive (sent when it has published nothing for a heartbeat interval).
    case heartbeat = 2
    /// An event for the sockets the options select (`requestId` when acknowledgements are awaited).
    case broadcast = 3
    /// The selected sockets join rooms.
    case socketsJoin = 4
    /// The selected sockets leave rooms.
    case socketsLeave = 5
    /// The selected sockets are disconnected.
    case disconnectSockets = 6
    /// A request for the selected sockets' descriptions.
    case fetchSockets = 7
    /// One server's answer to ``fetchSockets``.
    case fetchSocketsResponse = 8
    /// An event for the other servers themselves (`requestId` when answers are awaited).
    case serverSideEmit = 9
    /// One server's answer to ``serverSideEmit``.
    case serverSideEmitResponse = 10
    /// How many clients one server sent a broadcast with acknowledgements to.
    case broadcastClientCount = 11
    /// One client's acknowledgement of a broadcast.
    case broadcastAck = 12
    /// A server is leaving the cluster.
    case adapterClose = 13
}

/// Why a cluster message could not be read.
public enum ClusterMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The message is not a JSON object.
    case notAnObject
    /// A required member is absent.
    case missing(String)
    /// A member has the wrong JSON type.
    case wrongType(String)
    /// The type number is not one of ``ClusterMessageType``.
    case unknownType(Int)
    /// The notification's bytes are not JSON, or its attachment is not MessagePack.
    case unreadable(String)

    /// A one-line description, for logs.
    public var description: String {
        switch self {
        case .notAnObject: "cluster message is not an object"
        case .missing(let name): "cluster message has no valid \"\(name)\""
        case .wrongType(let name): "cluster message member \"\(name)\" has the wrong type"
        case .unknownType(let number): "unknown cluster message type \(number)"
        case .unreadable(let reason): "unreadable cluster message: \(reason)"
        }
    }
}
