// The README's client snippets as one program against the demo server: run `swift run sio serve`
// in one terminal, then `swift run ClientExample` in another. `scripts/test` runs it
// (Tests/SioTests/Examples/ExamplesTests.swift checks its output), and
// ReadmeSnippetTests.swift checks that every README snippet is a region below, verbatim
// (lines marked `// example-only` are left out of the README).

// snippet: quick-start
import Foundation
import SocketIO

let socket = try await io("http://localhost:3000")      // socket.io's io(url): a connected socket on "/"
let reply = try await socket.timeout(.seconds(5)).emitWithAck("echo", "hello")
print("echo acked:", reply)                              // ["hello"]
await socket.io.close()                                  // the socket's manager; close before exiting
// end snippet

// snippet: client
/// Where the app gets its tokens (the demo server's `/chat` wants "secret").
actor Tokens {
    func fresh() async throws -> String { "secret" }
}
let tokens = Tokens()

var configuration = Manager.Configuration()      // polling first, then upgrade, like socket.io
configuration.version = .auto                    // v4 servers and v3 (socket.io 2.x) servers alike
let manager = try Manager(url: URL(string: "http://localhost:3000")!, configuration: configuration)

let chat = manager.socket(namespace: "/chat", auth: .provider { ["token": try await tokens.fresh()] })
chat.on("server-ack") { event in
    print("the server asks:", event.items)       // [JSONValue]
    event.ack?("thanks")                         // present when the server asked for an ack
}
try await chat.connect()                         // throws .connectError(message:data:) on refusal

let photo = Data([0x89, 0x50, 0x4E, 0x47])
let echoed = try await chat.emitWithAck("echo", "hello", ["photo": .binary(photo)], timeout: .seconds(5))
print("echoed:", echoed)                         // binary prints as base64: ["hello", {"photo":{"base64":"iVBORw=="}}]
if case .binary(let bytes)? = echoed[1]["photo"] { print("photo bytes:", bytes.count) }

let results = chat.events(named: "server-ack-result")   // async sequences: subscribe, then ask
try chat.emit("server-ack", "question")
for await result in results.prefix(1) { print("the server heard:", result.items) }

struct Order: Codable, Sendable {
    let id: String
    let total: Double
}
let orders = chat.events(named: "echo", as: Order.self)  // Codable: the first item, decoded
try chat.emit("echo", encoding: Order(id: "A-17", total: 9.5))
for try await order in orders.prefix(1) { print("order:", order.id, order.total) }

await manager.close()                            // before exiting: disconnects after writing what was emitted
// end snippet

// snippet: reliability
var reliable = Manager.Configuration()
reliable.retries = 5                             // at-least-once emitWithAck
reliable.defaultAckTimeout = .seconds(2)         // per try
let orderManager = try Manager(url: URL(string: "http://localhost:3000")!, configuration: reliable)
let orderSocket = orderManager.socket()
let watcher = Task { for await event in orderManager.events { print("manager:", event) } }  // .reconnectAttempt(1), .reconnect(1), …
try await orderSocket.connect()                  // waits across attempts (see below)
let receipt = try await orderSocket.emitWithAck("ack", ["id": "A-17"])
print("receipt:", receipt)
await orderManager.close()
watcher.cancel()
// end snippet
