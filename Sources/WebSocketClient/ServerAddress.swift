package import Foundation

/// Where a server is: TLS or not, host and port, read from a `http`, `https`, `ws` or `wss` URL.
/// The engine's endpoint and the plain WebSocket driver both start from one.
package struct ServerAddress: Sendable, Hashable {
    /// TLS (`https`, `wss`).
    package var secure: Bool
    /// The host name or IP address, without brackets.
    package var host: String
    /// The TCP port (the scheme's default when the URL names none).
    package var port: Int

    package init(secure: Bool, host: String, port: Int) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// The address of `components`; nil for another scheme or no host.
    package init?(_ components: URLComponents) {
        guard let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty else {
            return nil
        }
        switch scheme {
        case "http", "ws": secure = false
        case "https", "wss": secure = true
        default: return nil
        }
        // Foundation on Linux keeps an IPv6 literal's brackets in `host`; the address is without.
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = components.port ?? (secure ? 443 : 80)
    }

    /// The `Host` header value: brackets around an IPv6 address, no port when it is the
    /// scheme's default.
    package var hostHeader: String {
        let defaultPort = secure ? 443 : 80
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return port == defaultPort ? hostPart : "\(hostPart):\(port)"
    }

    /// The name TLS sends as SNI: none for an IP address.
    package var serverHostname: String? {
        let isIPAddress = host.contains(":")
            || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
        return isIPAddress ? nil : host
    }
}
