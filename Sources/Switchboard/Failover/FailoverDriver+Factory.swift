package import Foundation
import SwitchboardCore
public import Logging

extension ConnectionFactory where Self == DriverConnectionFactory {
    /// Failover connections (``FailoverDriver``): one channel over plain WebSocket and Socket.IO
    /// to the same backend, exactly once and in order across switches. The configuration's URL is
    /// the Socket.IO server (`http://host:port`); the plain WebSocket endpoint is the same host at
    /// `webSocketPath` (`ws://host:port/ws`), unless `options` says otherwise.
    ///
    /// - Parameters:
    ///   - webSocketPath: the plain WebSocket endpoint's path on the same host.
    ///   - namespace: the Socket.IO namespace that carries channels.
    ///   - policy: decides the transport (a fresh copy per connection).
    ///   - clock: the connections' and drivers' clock (deadlines, acknowledgement delays, ticks).
    ///   - logger: where the connections and drivers log.
    ///   - options: adjusts each driver's options (other URLs, timeouts, the window).
    public static func failover(
        webSocketPath: String = "/ws",
        namespace: String = "/channel",
        policy: any FailoverPolicy = DefaultFailoverPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger? = nil,
        options: @escaping @Sendable (inout FailoverDriver.Options) -> Void = { _ in }
    ) -> DriverConnectionFactory {
        let adjust = options
        let logger = logger ?? .disabled("switchboard.failover")
        return DriverConnectionFactory(clock: clock, logger: logger) { configuration throws(ConnectionError) in
            guard let webSocketURL = FailoverDriver.webSocketURL(on: configuration.url, path: webSocketPath) else {
                throw .invalidConfiguration("no WebSocket URL for \(configuration.url.absoluteString)")
            }
            var options = FailoverDriver.Options(webSocketURL: webSocketURL, socketIOURL: configuration.url)
            options.namespace = namespace
            options.connectTimeout = configuration.connectTimeout
            options.requestTimeout = configuration.requestTimeout
            options.clock = clock
            options.logger = logger
            adjust(&options)
            return FailoverDriver(options: options, policy: policy)
        }
    }
}

extension FailoverDriver {
    /// The plain WebSocket endpoint at `path` on the Socket.IO server `base`: `ws://host:port/ws`
    /// for `http://host:port` (`wss` for `https` and `wss`), or `nil` when `base` is not a URL.
    package static func webSocketURL(on base: URL, path: String) -> URL? {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        components.scheme = components.scheme == "https" || components.scheme == "wss" ? "wss" : "ws"
        components.path = path
        return components.url
    }
}
