import Hummingbird
import Logging
import ServiceLifecycle
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// An application with a route of its own and Socket.IO, running in a service group.
struct MountedApp {
    let group: ServiceGroup
    let run: Task<Void, any Error>
    let port: Int

    static func start(_ socketIO: SocketIOServer) async throws -> MountedApp {
        let router = Router()
        router.get("/hello") { _, _ in "hello from the app" }
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            server: socketIO.httpServer(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in listening.yield(channel.localAddress?.port ?? 0) },
            logger: Logger(label: "test.app") { _ in SwiftLogNoOpLogHandler() }
        )
        let group = ServiceGroup(services: [app, socketIO.service], logger: Logger(label: "test.group") { _ in SwiftLogNoOpLogHandler() })
        let run = Task { try await group.run() }
        let port = try #require(try await ports.first(1, within: 30, "the application listening").first)
        return MountedApp(group: group, run: run, port: port)
    }
}
