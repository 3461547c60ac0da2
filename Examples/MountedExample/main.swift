// The `SocketIOServer` catalog's mounting snippet as a program: `swift run MountedExample` runs a
// Hummingbird application with a route of its own and Socket.IO on port 3002, talks to both once,
// and shuts the application down. `scripts/test` runs it and checks the documentation against it
// (Tests/SioTests/Examples).

// snippet: mounted
import Hummingbird
import Logging
import ServiceLifecycle
import SocketIOServer
import SocketIO  // example-only
import Foundation  // example-only

let socketIO = SocketIOServer()
socketIO.namespace("/").onConnection { socket in
    socket.on("echo") { event in event.ack?.respond(event.items) }
}
let router = Router()
router.get("/hello") { _, _ in "hello from the app" }          // the application's own routes
let (listening, ready) = AsyncStream<Void>.makeStream()  // example-only
let app = Application(
    router: router,
    server: socketIO.httpServer(),                                // Socket.IO on the application's port
    configuration: .init(address: .hostname("127.0.0.1", port: 3002)),
    onServerRunning: { _ in ready.yield() }  // example-only
)
let group = ServiceGroup(services: [app, socketIO.service], logger: Logger(label: "app"))
let running = Task { try await group.run() }                     // or app.runService() with the server's service added
for await _ in listening.prefix(1) {}  // example-only
let client = try await io("http://127.0.0.1:3002")  // example-only
print("echo acked:", try await client.timeout(.seconds(5)).emitWithAck("echo", "mounted"))  // example-only
await client.io.close()  // example-only
await group.triggerGracefulShutdown()                             // closes the sessions, then the server
try await running.value
print("the application stopped")  // example-only
// end snippet
