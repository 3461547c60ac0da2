import Foundation
import Logging
import NIOConcurrencyHelpers
import SocketIOServer
import SwitchboardDemo

/// The demo's embedded server, which a scene can take down and bring back on the same port.
final class DemoServerHost: Sendable {
    private struct Current: Sendable {
        var running: RunningServer
        var ticker: Task<Void, Never>
    }

    private let logger: Logger
    private let current: NIOLockedValueBox<Current?> = NIOLockedValueBox(nil)

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts a server (port 0: a free one) and returns its URL.
    @discardableResult
    func start(port: Int = 0) async throws -> URL {
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: logger)
        let ticker = DemoApplication.install(on: server, logger: logger)
        do {
            let running = try await server.start(host: "127.0.0.1", port: port)
            current.withLockedValue { $0 = Current(running: running, ticker: ticker) }
            return running.url
        } catch {
            ticker.cancel()
            throw error
        }
    }

    /// The port of the running (or last) server.
    var port: Int? { current.withLockedValue { $0?.running.port } }

    /// Stops the server; every connection to it drops.
    func stop() async {
        guard let stopping = current.withLockedValue({ $0 }) else { return }
        stopping.ticker.cancel()
        await stopping.running.stop()
    }
}
