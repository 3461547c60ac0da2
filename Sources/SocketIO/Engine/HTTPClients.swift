import SwitchboardCore
import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import WebSocketClient

/// The HTTP clients the polling transport uses, one per TLS and proxy setting, kept for the
/// life of the process (an `HTTPClient` must be shut down before it is dropped; these never are,
/// like `HTTPClient.shared`).
enum HTTPClients {
    struct Key: Hashable {
        var trustRoots: TrustRoots
        var proxy: HTTPProxy?
    }

    private static let clients = NIOLockedValueBox<[Key: HTTPClient]>([:])

    static func client(trustRoots: TrustRoots, proxy: HTTPProxy?) throws -> HTTPClient {
        let key = Key(trustRoots: trustRoots, proxy: proxy)
        return try clients.withLockedValue { clients in
            if let client = clients[key] { return client }
            var configuration = HTTPClient.Configuration()
            configuration.tlsConfiguration = try trustRoots.tlsConfiguration()
            configuration.timeout = .init(connect: .seconds(20), read: nil)
            // A refused connection fails the polling request at once, as a browser's XHR does:
            // the manager's reconnection backoff is the retry policy, and the HTTP client's own
            // retries would hold every attempt for the whole connect timeout.
            configuration.connectionPool.retryConnectionEstablishment = false
            if let proxy { configuration.proxy = .server(host: proxy.host, port: proxy.port) }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}
