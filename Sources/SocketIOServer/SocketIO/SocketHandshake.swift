public import Foundation
public import SocketIOProtocol

/// What a client sent to join a namespace: its CONNECT auth payload and the HTTP request that
/// opened its connection. Auth hooks (``Namespace/use(_:)``) decide on it; sockets keep it.
public struct SocketHandshake: Sendable {
    /// The namespace asked for, e.g. `/chat`.
    public let namespace: String
    /// The CONNECT payload (`auth` in socket.io's client), if any.
    public let auth: JSONObject?
    /// The opening request's headers, names in lower case (repeated headers joined with `, `).
    public let headers: [String: String]
    /// The opening request's query parameters (`EIO`, `transport` and the app's own).
    public let query: [String: String]
    /// The client's address (`127.0.0.1:53122`), when known.
    public let address: String?
    /// The opening request's target (`/socket.io/?EIO=4&transport=polling`).
    public let url: String
    /// When the connection opened.
    public let time: Date

    init(namespace: String, auth: JSONObject?, request: RequestInfo) {
        self.namespace = namespace
        self.auth = auth
        self.headers = request.headers
        self.query = request.query
        self.address = request.address
        self.url = request.url
        self.time = request.time
    }
}

/// The request that opened an Engine.IO session.
struct RequestInfo: Sendable {
    var headers: [String: String]
    var query: [String: String]
    var address: String?
    var url: String
    var time: Date
}
