import SocketIOProtocol

extension SocketPacket {
    /// The server's CONNECT reply in protocol v5: the socket's id, and with recovery on its
    /// private session id (`40/nsp,{"sid":…,"pid":…}`).
    static func connectReply(_ name: String, id: String, pid: String?) -> SocketPacket {
        var payload: JSONObject = ["sid": .string(id)]
        if let pid { payload["pid"] = .string(pid) }
        return SocketPacket(kind: .connect, namespace: name, data: .object(payload))
    }

    /// The server's refusal of a CONNECT (`44`): protocol v5's `{"message":…,"data":…}`, or
    /// protocol v4's data, or the message as a JSON string (socket.io's EIO3 answer).
    static func connectRefusal(_ name: String, message: String, data: JSONValue?, protocolV4: Bool) -> SocketPacket {
        guard !protocolV4 else { return SocketPacket(kind: .connectError, namespace: name, data: data ?? .string(message)) }
        var payload: JSONObject = ["message": .string(message)]
        if let data { payload["data"] = data }
        return SocketPacket(kind: .connectError, namespace: name, data: .object(payload))
    }

    /// `{"token":"1"}` of a protocol v4 CONNECT to `/admin?token=1` (its auth); `nil` without
    /// a query.
    static func queryObject(of namespace: String) -> JSONObject? {
        guard let mark = namespace.firstIndex(of: "?") else { return nil }
        let parameters = EngineQuery(namespace[namespace.index(after: mark)...]).parameters
        return JSONObject(parameters.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })
    }
}
