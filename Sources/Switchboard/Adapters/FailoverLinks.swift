import Foundation
import Logging
import SocketIOProtocol
import SwitchboardCore

/// The failover channel over a plain WebSocket: a ``WebSocketDriver`` that hands every envelope
/// over as it is.
final class WebSocketLink: FailoverLink {
    private let driver: WebSocketDriver

    private init(driver: WebSocketDriver) {
        self.driver = driver
    }

    /// Connects to `url` and returns once the upgrade completed; `report` gets every envelope
    /// and the end (a malformed message ends the connection: 1002, or 1003 for binary).
    static func open(
        _ url: URL, connectTimeout: Duration, report: @escaping @Sendable (FailoverLinkEvent) -> Void
    ) async throws -> WebSocketLink {
        var options = WebSocketDriver.Options()
        options.connectTimeout = connectTimeout
        let driver = WebSocketDriver(url: url, options: options) { report(.envelope(.success($0))) }
        do {
            try await driver.open { event in
                if case .closed(let reason) = event { report(.ended("WebSocket: \(reason)")) }
            }
        } catch let error as WebSocketDriverError {
            guard case .invalidURL = error else { throw ConnectionError.connectFailed("WebSocket: \(error)") }
            throw ConnectionError.invalidConfiguration("not a WebSocket URL: \(url.absoluteString)")
        }
        return WebSocketLink(driver: driver)
    }

    func send(_ envelope: Envelope) {
        driver.sendNow(envelope)
    }

    func close() {
        let driver = self.driver
        Task { await driver.close() }
    }
}

/// The failover channel over Socket.IO: a ``SocketIODriver`` on the channels' namespace, one
/// envelope per `envelope` event (its argument). Reconnecting is the channel's, not the client's.
final class SocketIOLink: FailoverLink {
    private let driver: SocketIODriver

    private init(driver: SocketIODriver) {
        self.driver = driver
    }

    /// Connects to `namespace` at `url` and returns once connected.
    static func open(
        _ url: URL, namespace: String, connectTimeout: Duration, report: @escaping @Sendable (FailoverLinkEvent) -> Void
    ) async throws -> SocketIOLink {
        var configuration = ConnectionConfiguration(url: url, namespace: namespace)
        configuration.connectTimeout = connectTimeout
        let driver = try SocketIODriver(
            configuration: configuration, logger: .disabled("switchboard.failover.socketio"), sharing: nil, followsNetwork: false
        )
        do {
            try await driver.open { event in
                switch event {
                case .event("envelope", let payload):
                    report(.envelope(Result { () throws(EnvelopeError) in try Envelope(json: payload) }))
                case .closed(let reason):
                    report(.ended("Socket.IO: \(reason)"))
                case .event, .request:
                    return
                }
            }
        } catch {
            await driver.close()
            throw ConnectionError.connectFailed("Socket.IO: \(error)")
        }
        return SocketIOLink(driver: driver)
    }

    func send(_ envelope: Envelope) {
        try? driver.sendNow("envelope", envelope.jsonValue)
    }

    func close() {
        let driver = self.driver
        Task { await driver.close() }
    }
}
