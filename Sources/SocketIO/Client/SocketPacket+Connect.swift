import Foundation
import SocketIOProtocol

extension SocketPacket {
    /// A client's CONNECT to `namespace` with its auth payload, as `version` carries it.
    static func connect(namespace: String, auth: JSONObject?, version: SocketIOVersion) -> SocketPacket {
        guard let auth, !auth.isEmpty else { return SocketPacket(kind: .connect, namespace: namespace) }
        switch version {
        case .v5:
            return SocketPacket(kind: .connect, namespace: namespace, data: .object(auth))
        case .v4:
            // Protocol v4 has no CONNECT payload: socket.io 2.x clients append a query to the
            // namespace (`40/chat?token=abc,`), which JS servers expose as the auth object.
            let query = QueryString.encode(auth.map { ($0.key, $0.value.stringValue ?? $0.value.jsonString) })
            return SocketPacket(kind: .connect, namespace: namespace + "?" + query)
        }
    }

}

extension DisconnectReason {
    /// What a connection failure says about this reason: the error's own detail, else the reason.
    var detail: String {
        switch self {
        case .transportError(let detail), .parseError(let detail): detail
        case .ioServerDisconnect, .ioClientDisconnect, .pingTimeout, .transportClose: description
        }
    }
}
