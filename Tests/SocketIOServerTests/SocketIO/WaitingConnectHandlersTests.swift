import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A namespace's auth hooks and connection handlers may wait without holding up the connection:
/// they ran on its reading path, so the client's ack of an `emitWithAck` made in `onConnection`
/// was read only after the handler gave up waiting for it, and a slow auth hook held back the
/// heartbeat and the client's other namespaces.
@Suite(.timeLimit(.minutes(1)))
struct WaitingConnectHandlersTests {
    @Test func anAckAwaitedInTheConnectionHandlerArrivesAndEarlyEventsWaitForTheHandler() async throws {
        try await DemoServer.with(setup: { server in
            server.namespace("/waiting").onConnection { socket in
                let reply = (try? await socket.emitWithAck("ping", timeout: .seconds(10))) ?? [.string("no reply")]
                socket.emit("got", items: reply)
                // Added after the wait: an event the client sent meanwhile still finds it.
                socket.on("early") { event in socket.emit("early-seen", items: event.items) }
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect("/waiting")
            #expect(try await client.next("the ping") == #"42/waiting,0["ping"]"#)
            try client.send(#"42/waiting,["early",1]"#)
            try client.send(#"43/waiting,0["ok"]"#)
            #expect(try await client.next("the reply, as the handler got it") == #"42/waiting,["got","ok"]"#)
            #expect(try await client.next("the early event, after the handler") == #"42/waiting,["early-seen",1]"#)
            client.socket.drop()
        }
    }

    @Test func aSlowAuthHookHoldsUpNeitherTheHeartbeatNorOtherNamespaces() async throws {
        let gate = Gate()
        defer { gate.open() }
        try await DemoServer.with({ $0.pingInterval = .milliseconds(100); $0.pingTimeout = .milliseconds(300) }, setup: { server in
            server.namespace("/slow").use { _ in await gate.wait() }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try client.send("40/slow,")
            // Another namespace is joined while the hook waits.
            let other = try await client.connect("/chat", auth: #"{"token":"secret"}"#)
            #expect(other["sid"] != nil)
            // Pings answered for well past pingInterval + pingTimeout: the session stays.
            for _ in 0..<8 {
                #expect(try await client.next("a ping") == "2")
                try client.send("3")
            }
            gate.open()
            var reply = try await client.next("the CONNECT reply")
            while reply == "2" {
                try client.send("3")
                reply = try await client.next("the CONNECT reply")
            }
            #expect(reply.hasPrefix("40/slow,{\"sid\":"))
            client.socket.drop()
        }
    }

    /// More events than are held for a namespace whose CONNECT is being handled: the reader
    /// waits for room, and every one arrives once the hook lets the socket in, in order.
    @Test func eventsPastTheHeldLimitWaitAndArriveInOrder() async throws {
        let gate = Gate()
        defer { gate.open() }
        let count = ClientSockets.pendingLimit + 44
        try await DemoServer.with(setup: { server in
            let slow = server.namespace("/slow")
            slow.use { _ in await gate.wait() }
            slow.onConnection { socket in
                socket.on("n") { event in
                    if event.items.first?.intValue == count - 1 { socket.emit("last", items: event.items) }
                }
                let seen = NIOLockedValueBox<[Int]>([])
                socket.onAny { event in
                    if event.name == "n" { seen.withLockedValue { $0.append(event.items.first?.intValue ?? -1) } }
                }
                socket.on("done") { _ in socket.emit("seen", items: [.bool(seen.withLockedValue { $0 } == Array(0..<count))]) }
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            try client.send("40/slow,")
            for n in 0..<count { try client.send(#"42/slow,["n",\#(n)]"#) }
            try client.send(#"42/slow,["done"]"#)
            gate.open()
            #expect(try await client.next("the CONNECT reply").hasPrefix("40/slow,{\"sid\":"))
            #expect(try await client.next("the last event") == #"42/slow,["last",\#(count - 1)]"#)
            #expect(try await client.next("the check") == #"42/slow,["seen",true]"#)
            client.socket.drop()
        }
    }

    /// An `events(named:)` stream nobody iterates holds at most its limit; past it the client's
    /// connection is closed (it grew without bound: a client could fill the server's memory).
    @Test func aStreamThatFallsBehindClosesTheConnection() async throws {
        let streams = NIOLockedValueBox<[AsyncStream<ServerEvent>]>([])
        try await DemoServer.with(setup: { server in
            server.namespace("/flood").onConnection { socket in
                let stream = socket.events(named: "n", bufferingUpTo: 10)
                streams.withLockedValue { $0.append(stream) }  // kept, never iterated
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect("/flood")
            for n in 0..<11 { try client.send(#"42/flood,["n",\#(n)]"#) }
            try await client.socket.waitForClose()
        }
    }
}
