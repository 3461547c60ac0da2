import Foundation
import Logging
import SocketIO
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The message center fed by a real Socket.IO connection: the embedded server pushes
/// order-status messages for several orders over loopback; our client carries them.
@Suite("MessageCenter end to end")
struct MessageCenterEndToEndTests {
    /// What the server pushes, in order: three orders, two repeated ids, one message that is not
    /// a message, and a last one that says the script is over.
    static let script: [JSONValue] = [
        orderMessage("00544", order: "TAINIUBILE1234", status: "placed"),
        orderMessage("00545", order: "ORDER-2", status: "placed"),
        orderMessage("00546", order: "TAINIUBILE1234", status: "paid"),
        orderMessage("00544", order: "TAINIUBILE1234", status: "placed"),     // repeated id
        orderMessage("00547", order: "ORDER-3", status: "placed"),
        "this is not a message",
        orderMessage("00548", order: "TAINIUBILE1234", status: "shipped"),
        orderMessage("00546", order: "TAINIUBILE1234", status: "paid"),       // repeated id
        orderMessage("00549", order: "ORDER-2", status: "paid"),
        orderMessage("00550", order: "TAINIUBILE1234", status: "delivered"),
        message("00551", ["type": "end"]),
    ]

    @Test func aSubscriberForOneOrderReceivesExactlyItsMessagesOnceEach() async throws {
        let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        server.namespace("/").onConnection { socket in
            socket.on("push-orders") { event in
                for message in Self.script { _ = socket.emit("message", message) }
                event.ack?.respond([.number(Double(Self.script.count))])
            }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)

        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(10)
        let manager = try Manager(url: running.url, configuration: configuration)
        let socket = manager.socket()

        let center = MessageCenter()
        let tainiubile = Recorder("TAINIUBILE1234")
        let order2 = Recorder("ORDER-2")
        let everything = Recorder("everything")
        // Subscribers get a message newest first, so the "end" stream, subscribed first, gets
        // the last message after `everything` has it.
        let end = center.messages(matching: [.value(at: "msg_body.type", equals: "end")])
        center.subscribe(everything)
        center.subscribe(tainiubile, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
        center.subscribe(order2, to: .value(at: "msg_body.extra.order_no", equals: "ORDER-2"))
        let feed = center.feed(from: socket.events(named: "message").map { $0.items.first ?? .null })

        try await withTimeout(20, "connect") { try await socket.connect() }
        let pushed = try await socket.emitWithAck("push-orders", timeout: .seconds(10))
        #expect(pushed == [.number(Double(Self.script.count))])
        // The feed dispatches in order, so once "end" is through, everything before it is too.
        _ = try await end.first(1, within: 20, "the end of the script")

        #expect(tainiubile.ids == ["00544", "00546", "00548", "00550"], "exactly its messages, once each, in order")
        #expect(order2.ids == ["00545", "00549"])
        #expect(everything.ids == ["00544", "00545", "00546", "00547", "00548", "00549", "00550", "00551"])
        #expect(center.statistics.dispatched == 8)
        #expect(center.statistics.duplicates == 2)
        #expect(center.statistics.rejected == 1)

        feed.cancel()
        await manager.close()
        await running.stop()
    }

    /// The same, the way feature code does it: a `Connection` (Socket.IO underneath, never
    /// named) from the builder, and the center attached to its `message` event.
    @Test func attachedToAConnectionTheOrderSubscriberGetsExactlyItsMessages() async throws {
        let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        server.namespace("/").onConnection { socket in
            socket.on("push-orders") { event in
                for message in Self.script { _ = socket.emit("message", message) }
                event.ack?.respond([.number(Double(Self.script.count))])
            }
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        let connection = try await withTimeout(20, "connect") {
            try await ConnectionBuilder().url(running.url).transport(.webSocketOnly).connectTimeout(.seconds(10)).connect()
        }

        let center = MessageCenter()
        let tainiubile = Recorder("TAINIUBILE1234")
        center.subscribe(tainiubile, to: .value(at: "msg_body.extra.order_no", equals: "TAINIUBILE1234"))
        let end = center.messages(matching: [.value(at: "msg_body.type", equals: "end")])
        let feed = center.attach(to: connection, event: "message")

        let reply = try await connection.request("push-orders", .null, timeout: .seconds(10))
        #expect(reply.value == .number(Double(Self.script.count)))
        _ = try await end.first(1, within: 20, "the end of the script")
        #expect(tainiubile.ids == ["00544", "00546", "00548", "00550"], "exactly its messages, once each, in order")
        #expect(center.statistics.duplicates == 2)
        #expect(center.statistics.rejected == 1)

        feed.cancel()
        try await connection.disconnect()
        try await connection.release()
        await running.stop()
    }
}
