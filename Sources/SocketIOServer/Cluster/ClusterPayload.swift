public import SocketIOProtocol

/// The typed `data` of a ``ClusterMessage``, one case per ``ClusterMessageType``.
public enum ClusterPayload: Sendable, Hashable {
    /// `INITIAL_HEARTBEAT`, `HEARTBEAT`, `ADAPTER_CLOSE`: no data.
    case none(ClusterMessageType)
    /// An event for the selected sockets; a `requestId` asks for client counts and acknowledgements.
    case broadcast(packet: ClusterPacket, options: ClusterBroadcastOptions, requestId: String?)
    /// The selected sockets join `rooms`.
    case socketsJoin(options: ClusterBroadcastOptions, rooms: [String])
    /// The selected sockets leave `rooms`.
    case socketsLeave(options: ClusterBroadcastOptions, rooms: [String])
    /// The selected sockets are disconnected (`close` also closes their connections).
    case disconnectSockets(options: ClusterBroadcastOptions, close: Bool)
    /// Asks every other server for its selected sockets.
    case fetchSockets(options: ClusterBroadcastOptions, requestId: String)
    /// One server's selected sockets.
    case fetchSocketsResponse(requestId: String, sockets: [RemoteSocket])
    /// An event for the servers: `[event, arguments…]`; a `requestId` asks each server for one answer.
    case serverSideEmit(packet: [JSONValue], requestId: String?)
    /// One server's answer to a server-side emit.
    case serverSideEmitResponse(requestId: String, value: JSONValue)
    /// How many clients one server sent a broadcast with acknowledgements to.
    case broadcastClientCount(requestId: String, count: Int)
    /// One client's acknowledgement (its first argument).
    case broadcastAck(requestId: String, value: JSONValue)

    /// The message type this payload travels as.
    public var type: ClusterMessageType {
        switch self {
        case .none(let type): type
        case .broadcast: .broadcast
        case .socketsJoin: .socketsJoin
        case .socketsLeave: .socketsLeave
        case .disconnectSockets: .disconnectSockets
        case .fetchSockets: .fetchSockets
        case .fetchSocketsResponse: .fetchSocketsResponse
        case .serverSideEmit: .serverSideEmit
        case .serverSideEmitResponse: .serverSideEmitResponse
        case .broadcastClientCount: .broadcastClientCount
        case .broadcastAck: .broadcastAck
        }
    }

    /// The `requestId` of a request or a response, if any.
    public var requestId: String? {
        switch self {
        case .none, .socketsJoin, .socketsLeave, .disconnectSockets: nil
        case .broadcast(_, _, let id), .serverSideEmit(_, let id): id
        case .fetchSockets(_, let id), .fetchSocketsResponse(let id, _), .serverSideEmitResponse(let id, _),
             .broadcastClientCount(let id, _), .broadcastAck(let id, _): id
        }
    }

    /// The `data` object as socket.io's adapters write it (member order included); `requestId`
    /// is left out when no answer is awaited — its presence is what asks for one.
    var data: JSONObject? {
        var data = JSONObject()
        switch self {
        case .none:
            return nil
        case .broadcast(let packet, let options, let requestId):
            data["packet"] = packet.json
            if let requestId { data["requestId"] = .string(requestId) }
            data["opts"] = options.json
        case .socketsJoin(let options, let rooms), .socketsLeave(let options, let rooms):
            data["opts"] = options.json
            data["rooms"] = .array(rooms.map(JSONValue.string))
        case .disconnectSockets(let options, let close):
            data["opts"] = options.json
            data["close"] = .bool(close)
        case .fetchSockets(let options, let requestId):
            data["opts"] = options.json
            data["requestId"] = .string(requestId)
        case .fetchSocketsResponse(let requestId, let sockets):
            data["requestId"] = .string(requestId)
            data["sockets"] = .array(sockets.map(\.json))
        case .serverSideEmit(let packet, let requestId):
            if let requestId { data["requestId"] = .string(requestId) }
            data["packet"] = .array(packet)
        case .serverSideEmitResponse(let requestId, let value), .broadcastAck(let requestId, let value):
            data["requestId"] = .string(requestId)
            data["packet"] = value
        case .broadcastClientCount(let requestId, let count):
            data["requestId"] = .string(requestId)
            data["clientCount"] = .number(Double(count))
        }
        return data
    }
}

extension ClusterMessage {
    /// A message carrying `payload` from server `uid`.
    public init(uid: String, namespace: String, payload: ClusterPayload, sequence: UInt64? = nil) {
        self.init(uid: uid, namespace: namespace, type: payload.type, data: payload.data, sequence: sequence)
    }

    /// The typed data.
    ///
    /// - Throws: ``ClusterMessageError`` when a member the type requires is missing or mistyped.
    public var payload: ClusterPayload {
        get throws(ClusterMessageError) {
            let fields = Fields(data ?? JSONObject())
            switch type {
            case .initialHeartbeat, .heartbeat, .adapterClose:
                return .none(type)
            case .broadcast:
                return .broadcast(
                    packet: try ClusterPacket(json: try fields.value("packet")),
                    options: try fields.options(),
                    requestId: try fields.optionalString("requestId")
                )
            case .socketsJoin:
                return .socketsJoin(options: try fields.options(), rooms: try fields.strings("rooms"))
            case .socketsLeave:
                return .socketsLeave(options: try fields.options(), rooms: try fields.strings("rooms"))
            case .disconnectSockets:
                return .disconnectSockets(options: try fields.options(), close: fields.data["close"]?.boolValue ?? false)
            case .fetchSockets:
                return .fetchSockets(options: try fields.options(), requestId: try fields.string("requestId"))
            case .fetchSocketsResponse:
                guard case .array(let sockets)? = fields.data["sockets"] else { throw .missing("sockets") }
                var described: [RemoteSocket] = []
                for socket in sockets { described.append(try RemoteSocket(json: socket)) }
                return .fetchSocketsResponse(requestId: try fields.string("requestId"), sockets: described)
            case .serverSideEmit:
                guard case .array(let packet)? = fields.data["packet"], !packet.isEmpty else { throw .missing("packet") }
                return .serverSideEmit(packet: packet, requestId: try fields.optionalString("requestId"))
            case .serverSideEmitResponse:
                return .serverSideEmitResponse(requestId: try fields.string("requestId"), value: fields.data["packet"] ?? .null)
            case .broadcastClientCount:
                guard let count = fields.data["clientCount"]?.intValue, count >= 0 else { throw .missing("clientCount") }
                return .broadcastClientCount(requestId: try fields.string("requestId"), count: count)
            case .broadcastAck:
                return .broadcastAck(requestId: try fields.string("requestId"), value: fields.data["packet"] ?? .null)
            }
        }
    }
}

/// Typed reads of a message's `data` members.
private struct Fields {
    let data: JSONObject

    init(_ data: JSONObject) { self.data = data }

    func value(_ name: String) throws(ClusterMessageError) -> JSONValue {
        guard let value = data[name] else { throw .missing(name) }
        return value
    }

    func string(_ name: String) throws(ClusterMessageError) -> String {
        guard case .string(let value)? = data[name] else { throw .missing(name) }
        return value
    }

    func optionalString(_ name: String) throws(ClusterMessageError) -> String? {
        switch data[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .wrongType(name)
        }
    }

    func strings(_ name: String) throws(ClusterMessageError) -> [String] {
        try Self.strings(data[name], name: name)
    }

    func options() throws(ClusterMessageError) -> ClusterBroadcastOptions {
        try ClusterBroadcastOptions(json: try value("opts"))
    }

    static func strings(_ value: JSONValue?, name: String) throws(ClusterMessageError) -> [String] {
        guard case .array(let elements)? = value else { throw .missing(name) }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { throw .wrongType(name) }
            strings.append(string)
        }
        return strings
    }
}

/// Which sockets a cluster operation selects: socket.io's `BroadcastOptions` as it crosses
/// servers (`{"rooms":[…],"except":[…],"flags":{…}}`).
public struct ClusterBroadcastOptions: Sendable, Hashable {
    /// Sockets in any of these rooms (every socket when empty).
    public var rooms: [String]
    /// Minus the sockets in any of these rooms.
    public var except: [String]
    /// socket.io's flags as sent (`volatile`, `local`, `timeout`, `compress`, `broadcast`…).
    public var flags: JSONObject

    /// Options selecting `rooms` minus `except`.
    public init(rooms: [String] = [], except: [String] = [], flags: JSONObject = JSONObject()) {
        self.rooms = rooms
        self.except = except
        self.flags = flags
    }

    /// Whether the `volatile` flag is set.
    public var isVolatile: Bool { flags["volatile"]?.boolValue ?? false }

    /// The `timeout` flag (milliseconds) of a broadcast with acknowledgements, at most
    /// ``maxTimeout``; `nil` when absent, not a number, NaN or negative.
    ///
    /// The number comes from another server: beyond what a timer holds it is clamped (an
    /// infinite one too) rather than trapping in `Duration`. No Node.js requester waits longer
    /// than the maximum: `setTimeout` fires at once for a longer delay.
    public var timeout: Duration? {
        guard let milliseconds = flags["timeout"]?.doubleValue, milliseconds >= 0 else { return nil }  // NaN fails too
        return .milliseconds(min(milliseconds, Self.maxTimeoutMilliseconds))
    }

    /// The longest ``timeout``: 2^31 - 1 ms (about 24.8 days), Node.js's longest timer.
    public static let maxTimeout = Duration.milliseconds(maxTimeoutMilliseconds)
    private static let maxTimeoutMilliseconds: Double = 2_147_483_647

    var json: JSONValue {
        var object = JSONObject()
        object["rooms"] = .array(rooms.map(JSONValue.string))
        object["except"] = .array(except.map(JSONValue.string))
        object["flags"] = .object(flags)
        return .object(object)
    }

    init(json: JSONValue) throws(ClusterMessageError) {
        guard case .object(let object) = json else { throw .wrongType("opts") }
        rooms = try Fields.strings(object["rooms"] ?? .array([]), name: "rooms")
        except = try Fields.strings(object["except"] ?? .array([]), name: "except")
        if case .object(let flags)? = object["flags"] { self.flags = flags } else { flags = JSONObject() }
    }
}

/// A Socket.IO packet as cluster adapters pass it (socket.io-parser's object before encoding):
/// `{"type":2,"data":["event",…],"nsp":"/"}`; binary stays in place as `JSONValue.binary`.
public struct ClusterPacket: Sendable, Hashable {
    /// The Socket.IO packet type (2 = EVENT).
    public var type: Int
    /// `[event, arguments…]` for an event.
    public var data: [JSONValue]
    /// The namespace.
    public var namespace: String
    /// An acknowledgement id, when the sender set one.
    public var id: Int?

    /// An EVENT packet.
    public init(event: String, items: [JSONValue], namespace: String) {
        self.type = 2
        self.data = [.string(event)] + items
        self.namespace = namespace
        self.id = nil
    }

    /// The event name, when this is an event.
    public var event: String? {
        guard type == 2 || type == 5, case .string(let name)? = data.first else { return nil }
        return name
    }

    /// The event's arguments.
    public var items: [JSONValue] { Array(data.dropFirst()) }

    var json: JSONValue {
        var object = JSONObject()
        object["type"] = .number(Double(type))
        object["data"] = .array(data)
        object["nsp"] = .string(namespace)
        if let id { object["id"] = .number(Double(id)) }
        return .object(object)
    }

    init(json: JSONValue) throws(ClusterMessageError) {
        guard case .object(let object) = json else { throw .wrongType("packet") }
        guard let type = object["type"]?.intValue else { throw .missing("packet.type") }
        guard case .array(let data)? = object["data"] else { throw .missing("packet.data") }
        self.type = type
        self.data = data
        self.namespace = object["nsp"]?.stringValue ?? "/"
        self.id = object["id"]?.intValue
    }
}

/// A socket on any server of the cluster, as `fetchSockets` describes it:
/// `{"id":…,"handshake":{…},"rooms":[…],"data":…}`.
public struct RemoteSocket: Sendable, Hashable {
    /// The socket's id.
    public var id: String
    /// Its handshake in socket.io's shape (`headers`, `time`, `address`, `xdomain`, `secure`,
    /// `issued`, `url`, `query`, `auth`).
    public var handshake: JSONObject
    /// The rooms it is in (its own id among them).
    public var rooms: [String]
    /// Its `data`.
    public var data: JSONValue

    /// A described socket.
    public init(id: String, handshake: JSONObject, rooms: [String], data: JSONValue) {
        self.id = id
        self.handshake = handshake
        self.rooms = rooms
        self.data = data
    }

    var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["handshake"] = .object(handshake)
        object["rooms"] = .array(rooms.map(JSONValue.string))
        object["data"] = data
        return .object(object)
    }

    init(json: JSONValue) throws(ClusterMessageError) {
        guard case .object(let object) = json else { throw .wrongType("sockets") }
        guard case .string(let id)? = object["id"] else { throw .missing("sockets.id") }
        self.id = id
        if case .object(let handshake)? = object["handshake"] { self.handshake = handshake } else { handshake = JSONObject() }
        rooms = try Fields.strings(object["rooms"] ?? .array([]), name: "sockets.rooms")
        data = object["data"] ?? .null
    }
}
