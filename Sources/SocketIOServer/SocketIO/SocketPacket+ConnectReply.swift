import SocketIOProtocol

extension SocketPacket {
    /// The server's CONNECT reply in protocol v5: the socket's id, and with recovery on its
    /// private session id (`40/nsp,{"sid":…,"pid":…}`).
    static func connectReply(_ name: String, id: String, pid: String?) -> SocketPacket {
        var payload: JSONObject = ["sid": .string(id)]
        if let pid { payload["pid"] = .string(pid) }
        return SocketPacket(kind: .connect, namespace: name, data: .object(payload))
    }
}
