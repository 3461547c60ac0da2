import Foundation
import Logging
import SocketIOServer
import SwitchboardDemo

/// `sio serve`'s server (DemoApplication) in the test process, on a free loopback port.
enum EmbeddedDemoServer {
    /// Starts the server, runs `body` with it, and stops it (also when `body` throws). `/ticker`
    /// ticks every `tickInterval` (rarely by default, so it costs nothing when unused).
    static func with<T: Sendable>(
        tickInterval: Duration = .seconds(3600),
        _ body: (SocketIOServer, URL) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "sio.tests.server")
        logger.logLevel = .critical
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: logger)
        let ticker = DemoApplication.install(on: server, logger: logger, tickInterval: tickInterval)
        defer { ticker.cancel() }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        do {
            let result = try await body(server, running.url)
            await running.stop()
            return result
        } catch {
            await running.stop()
            throw error
        }
    }
}

/// A string quoted for `sh -c`.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
}
