// The README's embedded server snippet as a program: `swift run ServerExample` starts a server on
// port 3001, talks to it with the client once, and stops it. `scripts/test` runs it and checks
// the README against it (Tests/SioTests/Examples).

// snippet: server
import Foundation
import Logging                                       // swift-log: a product of the swift-log package
import SocketIOServer
import SocketIO  // example-only

var logger = Logger(label: "chat-server")            // StreamLogHandler prints to standard error
logger.logLevel = .warning
var configuration = SocketIOServer.Configuration()
configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
let server = SocketIOServer(configuration: configuration, logger: logger)
let chat = server.namespace("/chat")
chat.use { handshake in                              // auth hook: refuse with message and data
    guard handshake.auth?["token"] == "secret" else {
        throw ConnectionRefused(message: "unauthorized", data: ["reason": "bad token"])
    }
}
chat.onConnection { socket in
    socket.on("echo") { event in
        socket.emit("echo", items: event.items)
        event.ack?.respond(event.items)
    }
    socket.join("lobby")
    socket.to("lobby").emit("joined", .string(socket.id))   // everyone in the room but the sender
}
let running = try await server.start(host: "127.0.0.1", port: 3001)   // port 0 picks one
print("listening on", running.url)
let client = try await io(running.url, namespace: "/chat", auth: .static(["token": "secret"]))  // example-only
print("echo acked:", try await client.timeout(.seconds(5)).emitWithAck("echo", "hi server"))  // example-only
await client.io.close()  // example-only
await running.stop()                                 // closes every connection, then stops listening
// end snippet
