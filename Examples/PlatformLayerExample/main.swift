// The snippets of Switchboard's DocC articles (Sources/Switchboard/Switchboard.docc) as one
// program against the demo server: run `swift run sio serve`, then
// `swift run PlatformLayerExample`. `scripts/test` runs it and checks the articles against it
// (Tests/SioTests/Examples).

// snippet: docc-overview
import Foundation
import Switchboard

let lease = try await ConnectionManager.shared.lease(URL(string: "http://127.0.0.1:3000")!)
let updates = lease.connection.events(named: "message")
_ = try await lease.connection.request("push-messages")     // the demo server's order updates
for await update in updates.prefix(3) { print("update:", update["msg_body"]?["title"] ?? "") }
lease.release()
// end snippet

// snippet: docc-shared
let url = URL(string: "http://127.0.0.1:3000")!
let orders = try await ConnectionManager.shared.lease(url)
let chat = try await ConnectionManager.shared.lease(url)
print("shared:", orders.connection === chat.connection)     // one connection, opened by the keeper
// end snippet

// snippet: docc-lifecycle
let connection = orders.connection
let watcher = Task { for await state in connection.stateChanges() { print("state:", state) } }
// end snippet

// snippet: docc-offline
let cart: JSONValue = ["items": ["A-17"], "total": 9.5]
Task { try await connection.send("echo", ["text": "sent in a tunnel"]) }   // waits in the queue
let receipt = try await connection.request("ack", cart, timeout: .seconds(10))
print("receipt:", receipt.values)
// end snippet
orders.release()  // example-only
chat.release()  // example-only
watcher.cancel()  // example-only

// snippet: docc-keeper
let manager = ConnectionManager(
    rules: [IdleGraceRule(grace: .seconds(10))] + ConnectionKeeper.defaultRules,
    scanInterval: .seconds(2)
)
let keeperLog = Task { for await event in manager.keeper.events() { print("keeper:", event) } }
let screen = try await manager.lease(url)
print("screen:", try await screen.connection.request("ack", "from a screen").values)
screen.release()                                             // free: IdleGraceRule keeps it 10 s, then it closes
await manager.shutdown()
keeperLog.cancel()
// end snippet

// snippet: docc-builder
/// Where the app keeps its session (the demo server's /chat wants "secret").
actor Session {
    func freshToken() async throws -> String { "secret" }
}
let session = Session()
let built = try await ConnectionBuilder()
    .url(URL(string: "http://127.0.0.1:3000")!)
    .namespace("/chat")
    .auth(id: "session") { ["token": try await session.freshToken()] }
    .transport(.webSocketOnly)
    .requestTimeout(.seconds(5))
    .connect()
// ConnectionBuilder().namespace("/chat").connect()   // does not compile: no URL
print("built:", try await built.request("ack", "hello").values)
try await built.disconnect()
// end snippet

// snippet: docc-in-memory
import SwitchboardTesting

let server = InMemoryServer()
server.onRequest("greet") { name in .string("hello, \(name.stringValue ?? "?")") }
let testManager = ConnectionManager(factory: .inMemory(server))   // tests also pass `clock:` a test clock
let testLease = try await testManager.lease(URL(string: "memory://test")!)
print("in memory:", try await testLease.connection.request("greet", "ada").value)
server.dropConnections()   // the keeper reconnects at its next interval
testLease.release()
await testManager.shutdown()
// end snippet
await ConnectionManager.shared.shutdown()  // example-only
