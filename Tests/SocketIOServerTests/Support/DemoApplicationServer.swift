import Logging
import SocketIOServer
import SwitchboardDemo

/// Runs `body` with the port of a server that has the demo installed (`sio serve`'s behaviour),
/// and stops the server after, whatever `body` did.
func withDemoApplication(_ body: (Int) async throws -> Void) async throws {
    let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    let server = SocketIOServer(configuration: DemoApplication.configuration, logger: logger)
    DemoApplication.install(on: server, logger: logger).cancel()
    let running = try await server.start(host: "127.0.0.1", port: 0)
    do {
        try await body(running.port)
        await running.stop()
    } catch {
        await running.stop()
        throw error
    }
}
