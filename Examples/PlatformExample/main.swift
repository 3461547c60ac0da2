// The README's platform layer and message center snippets as one program against the demo
// server: run `swift run sio serve` in one terminal, then `swift run PlatformExample`.
// `scripts/test` runs it and checks the README against it (Tests/SioTests/Examples).

// snippet: platform
import Foundation
import Switchboard

let url = URL(string: "http://127.0.0.1:3000")!
let orders = try await ConnectionManager.shared.lease(url)
let chat = try await ConnectionManager.shared.lease(url)
print("one connection:", orders.connection === chat.connection)   // opened by the keeper
let echoes = orders.connection.events(named: "echo")
try await chat.connection.send("echo", ["text": "hi"])            // queued while offline, FIFO
for await echo in echoes.prefix(1) { print("echo:", echo) }
let reply = try await chat.connection.request("ack", "ping")       // deadline counts from the call
print("reply:", reply.values)
orders.release(); chat.release()                                   // the keeper disconnects, then releases

let direct = try await ConnectionBuilder()                         // `connect()` exists only once a URL is set
    .url(url).namespace("/chat").auth(["token": "secret"])
    .connect()                                                     // `.connect(using: .inMemory(server))` in tests
print("chat reply:", try await direct.request("ack", "hello").values)
try await direct.disconnect()
await ConnectionManager.shared.shutdown()                          // before exiting: closes the pool
// end snippet

// snippet: message-center
/// A screen that follows one order.
final class OrderScreen: MessageSubscriber {
    func receive(_ message: Message) async -> MessageDisposition {
        print("order screen:", message.body["title"] ?? "")
        return .continue                          // .processed marks it for later subscribers
    }
}

let center = MessageCenter()                      // {"msg_id": …, "msg_body": {…}} by default; pass `logger:` to log rejects
let orderScreen = OrderScreen()                   // held weakly by the center
center.subscribe(orderScreen, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
let shares = center.subscribe(to: [.anyValue(at: "msg_body.share")]) { message in
    print("shared by:", message.body["from"] ?? "?")
    return .intercept                             // later subscribers do not see it
}
let ends = center.messages(matching: [.value(at: "msg_body.type", equals: "end")])

let feedConnection = try await ConnectionBuilder().url(url).connect()
let feed = center.attach(to: feedConnection, event: "message")   // or center.feed(from: anyAsyncSequence)
_ = try await feedConnection.request("push-messages")           // the demo server sends its script
for await _ in ends.prefix(1) { print("statistics:", center.statistics) }
shares.cancel()
feed.cancel()
try await feedConnection.disconnect()
// end snippet

// snippet: failover
let failover = ConnectionManager(factory: .failover())             // ws://host/ws + Socket.IO /channel
let channel = try await failover.lease(url)
let channelEchoes = channel.connection.events(named: "echo")
let channelReply = try await channel.connection.request("echo", "hi", timeout: .seconds(5))
print("channel reply:", channelReply.values)                        // numbered, acknowledged, resent after a switch
for await echo in channelEchoes.prefix(1) { print("channel echo:", echo) }
channel.release()
await failover.shutdown()
// end snippet

// snippet: live-status
let live = try await ConnectionBuilder().url(url).connect()
let status = LiveStatus(following: live)                           // @Observable, on the main actor
print("live status:", status.state, status.lastError ?? "no error") // what a SwiftUI view reads
try await live.disconnect()
try await live.release()                                           // the model stops following
// end snippet
