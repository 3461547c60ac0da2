import Foundation
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The plain WebSocket driver against the embedded server on loopback.
@Suite("WebSocket driver")
struct WebSocketDriverTests {
    @Test("opens, sends an event the server sees, closes")
    func sendReachesTheServer() async throws {
        let seen = AsyncStream<JSONValue>.makeStream()
        try await EnvelopeServer.with(setup: { server in
            server.onPlainWebSocket { connection in
                let socket = EnvelopeSocket(connection)
                socket.on("note") { payload in seen.continuation.yield(payload) }
                try await socket.run()
            }
        }) { server in
            let driver = WebSocketDriver(url: server.url)
            try await driver.open { _ in }
            try await driver.send("note", ["text": "hi", "n": 1])
            let received = try await seen.stream.first(1, within: 10, "the server sees the note")
            #expect(received == [["text": "hi", "n": 1]])
            await driver.close()
            await #expect(throws: DriverError.notConnected) { try await driver.send("note", nil) }
        }
    }

    /// Handlers capture their socket (as every example does); kept after `run()` they kept the
    /// socket, its connection and the connection's buffers for good: `sio serve` grew by about
    /// 45 kB with every `/ws` connection.
    @Test("once run() returns, the socket is not kept by its own handlers")
    func theSocketIsReleasedWhenItsConnectionEnds() async throws {
        final class Weak: @unchecked Sendable { weak var socket: EnvelopeSocket? }
        let weak = Weak()
        let closed = AsyncStream<Void>.makeStream()
        try await EnvelopeServer.with(setup: { server in
            server.onConnectionEvent { event in
                if case .plainWebSocketClosed = event { closed.continuation.yield() }
            }
            server.onPlainWebSocket { connection in
                let socket = EnvelopeSocket(connection)
                socket.onRequest("echo") { payload in
                    socket.emit("echo", payload)
                    return [payload]
                }
                weak.socket = socket
                try await socket.run()
            }
        }) { server in
            let driver = WebSocketDriver(url: server.url)
            try await driver.open { _ in }
            #expect(try await driver.request("echo", 1, timeout: .seconds(10)).value == 1)
            #expect(weak.socket != nil)
            await driver.close()
            _ = try await closed.stream.first(1, within: 10, "the server's end of the connection")
            #expect(weak.socket == nil, "the socket outlived its connection")
        }
    }

    /// A connect timeout too long for NIO's nanoseconds (an app's "never") saturated, and the
    /// second added to it for the TCP connect trapped in TimeAmount's `+`.
    @Test("a connect timeout of centuries opens")
    func aVeryLongConnectTimeoutOpens() async throws {
        try await EnvelopeServer.with { server in
            var options = WebSocketDriver.Options()
            options.connectTimeout = .seconds(Int64.max / 2)
            let driver = WebSocketDriver(url: server.url, options: options)
            try await driver.open { _ in }
            #expect(try await driver.request("ack", 1, timeout: .seconds(10)).value == 1)
            await driver.close()
        }
    }

    @Test("a request gets its reply, matched by id among many in flight")
    func requestReply() async throws {
        try await EnvelopeServer.with { server in
            let driver = WebSocketDriver(url: server.url)
            let events = DriverEvents()
            try await driver.open(onEvent: events.handler)
            let reply = try await driver.request("echo", ["a": [1, "x"]], timeout: .seconds(10))
            #expect(reply == Response(values: [["a": [1, "x"]]]))
            #expect(try await events.next("echo") == ["a": [1, "x"]])

            let replies = try await withThrowingTaskGroup(of: (Int, Response).self) { group in
                for index in 0..<20 {
                    group.addTask { (index, try await driver.request("ack", .number(Double(index)), timeout: .seconds(10))) }
                }
                return try await group.reduce(into: [Int: Response]()) { $0[$1.0] = $1.1 }
            }
            #expect(replies.count == 20)
            for (index, reply) in replies { #expect(reply.value == .number(Double(index))) }
            await driver.close()
        }
    }

    @Test("the server's error envelope fails the request with its message")
    func serverError() async throws {
        try await EnvelopeServer.with { server in
            let driver = WebSocketDriver(url: server.url)
            try await driver.open { _ in }
            await #expect(throws: WebSocketDriverError.serverError(event: "nobody", message: #"no handler for "nobody""#)) {
                try await driver.request("nobody", nil, timeout: .seconds(10))
            }
            await driver.close()
        }
    }

    @Test("a request without a reply times out on the injected clock, typed")
    func requestTimeout() async throws {
        let clock = ManualClock()
        try await EnvelopeServer.with(setup: { server in
            server.onPlainWebSocket { connection in
                for try await _ in connection.messages {}  // reads, never answers
            }
        }) { server in
            var options = WebSocketDriver.Options()
            options.clock = clock
            let driver = WebSocketDriver(url: server.url, options: options)
            try await driver.open { _ in }
            let request = Task { try await driver.request("slow", "x", timeout: .seconds(5)) }
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(5))
            await #expect(throws: WebSocketDriverError.requestTimedOut(event: "slow", after: .seconds(5))) {
                try await withTimeout(10, "the timeout") { try await request.value }
            }
            // The driver is still open and usable.
            try await driver.send("more", nil)
            await driver.close()
        }
    }

    @Test("a message the server sends right on connect arrives")
    func pushOnConnect() async throws {
        try await EnvelopeServer.with(setup: { server in
            server.onPlainWebSocket { connection in
                // Sent before the client's first message: arrives with (or right after) the 101.
                EnvelopeSocket(connection).emit("welcome", .string(connection.query["name"] ?? "?"))
                for try await _ in connection.messages {}
            }
        }) { server in
            let driver = WebSocketDriver(url: URL(string: server.url.absoluteString + "?name=ada")!)
            let events = DriverEvents()
            try await driver.open(onEvent: events.handler)
            #expect(try await events.next("welcome") == "ada")
            await driver.close()
        }
    }

    @Test("the server pushes: a delayed event, a burst in order, a broadcast to every client")
    func serverPush() async throws {
        try await EnvelopeServer.with { server in
            let first = WebSocketDriver(url: server.url)
            let firstEvents = DriverEvents()
            try await first.open(onEvent: firstEvents.handler)
            let second = WebSocketDriver(url: server.url)
            let secondEvents = DriverEvents()
            try await second.open(onEvent: secondEvents.handler)

            try await first.send("later", [1, "soon"])
            #expect(try await firstEvents.next("later") == "soon")

            try await first.send("burst", 3)
            #expect(try await firstEvents.next("burst-done") == 3)
            #expect(firstEvents.all.compactMap { $0.event?.name == "burst-item" ? $0.event?.payload : nil } == [0, 1, 2])

            // Both sockets are registered once each has had an answer.
            _ = try await second.request("ack", nil, timeout: .seconds(10))
            let count = try await first.request("broadcast", "all", timeout: .seconds(10))
            #expect(count.value == 2)
            #expect(try await firstEvents.next("broadcast") == "all")
            #expect(try await secondEvents.next("broadcast") == "all")
            await first.close()
            await second.close()
        }
    }

    @Test("headers reach the server; no Origin is sent")
    func headers() async throws {
        try await EnvelopeServer.with { server in
            var options = WebSocketDriver.Options()
            options.headers = [(name: "Authorization", value: "Bearer token-1")]
            let driver = WebSocketDriver(url: server.url, options: options)
            try await driver.open { _ in }
            let headers = try await driver.request("headers", nil, timeout: .seconds(10)).value
            #expect(headers["authorization"] == "Bearer token-1")
            #expect(headers.objectValue?.keys.contains("origin") == false)
            await driver.close()
        }
    }
}
