import Foundation
import SocketIOProtocol
import WebSocketClient

/// Where an Engine.IO server lives and how its request URIs are formed.
struct EngineEndpoint: Sendable, Hashable {
    /// TLS or not, host and port.
    var address: ServerAddress
    /// The Engine.IO path, always ending in `/` (`/socket.io/`).
    var path: String
    /// Extra query parameters, sent on every request.
    var query: [URLQueryItem]

    /// Reads scheme, host, port and query from `url`; `path` is the Engine.IO path option.
    init(url: URL, path: String, query: [URLQueryItem]) throws(SocketIOError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let address = ServerAddress(components) else {
            throw .invalidURL(url.absoluteString)
        }
        self.address = address
        self.path = EnginePath.normalized(path)
        self.query = (components.queryItems ?? []) + query
    }

    /// The request target for one Engine.IO request.
    func requestURI(
        transport: String, version: EngineIOVersion, sid: String?, timestamp: String? = nil, extra: [URLQueryItem] = []
    ) -> String {
        var items = query + extra
        items.append(URLQueryItem(name: "EIO", value: String(version.rawValue)))
        items.append(URLQueryItem(name: "transport", value: transport))
        if let sid { items.append(URLQueryItem(name: "sid", value: sid)) }
        if let timestamp { items.append(URLQueryItem(name: "t", value: timestamp)) }
        return path + "?" + QueryString.encode(items.map { ($0.name, $0.value) })
    }
}
