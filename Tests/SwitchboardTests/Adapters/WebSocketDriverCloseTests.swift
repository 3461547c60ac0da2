import Foundation
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The driver when the connection goes away, cannot be made, or the server breaks the protocol.
@Suite("WebSocket driver: closes and failures")
struct WebSocketDriverCloseTests {
    /// A `/ws` that closes the connection on a request for `drop`, and sends `garbage` on a
    /// request for `garbage`; `ack` is answered.
    static func troublemaker(garbage: PlainWebSocketMessage) -> (SocketIOServer) -> Void {
        { server in
            server.onPlainWebSocket { connection in
                for try await message in connection.messages {
                    guard case .text(let text) = message, case .request(let name, let data, let id, _) = try Envelope(parsing: text) else {
                        continue
                    }
                    switch name {
                    case "drop":
                        return  // the connection closes when the handler returns
                    case "garbage":
                        switch garbage {
                        case .text(let text): connection.send(text)
                        case .binary(let data): connection.send(data)
                        }
                    default:
                        connection.send(Envelope.reply(id: id, data: [data]).text)
                    }
                }
            }
        }
    }

    @Test("the server closes the socket: closed once, the request in flight fails typed, re-open works")
    func serverCloses() async throws {
        try await EnvelopeServer.with(setup: Self.troublemaker(garbage: .text(""))) { server in
            let driver = WebSocketDriver(url: server.url)
            let events = DriverEvents()
            try await driver.open(onEvent: events.handler)
            let error = await #expect(throws: WebSocketDriverError.self) {
                try await driver.request("drop", nil, timeout: .seconds(30))
            }
            guard case .closed(let reason)? = error else {
                Issue.record("expected .closed, got \(String(describing: error))")
                return
            }
            #expect(try await events.nextClose() == reason)

            // Opened again, used, closed by the app: the first connection reported one close.
            let again = DriverEvents()
            try await driver.open(onEvent: again.handler)
            #expect(try await driver.request("ack", 1, timeout: .seconds(10)).value == 1)
            await driver.close()
            #expect(events.closeReasons == [reason])
            #expect(again.closeReasons.isEmpty)
        }
    }

    @Test("the app's close fails the request in flight and reports no close event")
    func appCloses() async throws {
        let seen = AsyncStream<Void>.makeStream()
        try await EnvelopeServer.with(setup: { server in
            server.onPlainWebSocket { connection in
                for try await _ in connection.messages { seen.continuation.yield() }
            }
        }) { server in
            let driver = WebSocketDriver(url: server.url)
            let events = DriverEvents()
            try await driver.open(onEvent: events.handler)
            let request = Task { try await driver.request("never", nil, timeout: .seconds(60)) }
            _ = try await seen.stream.first(1, within: 10, "the server sees the request")
            await driver.close()
            await #expect(throws: WebSocketDriverError.closed(reason: "the driver was closed")) {
                try await withTimeout(10, "the request fails") { try await request.value }
            }
            #expect(events.all.isEmpty)
            await driver.close()  // a second close does nothing
        }
    }

    @Test("the server stopped: open fails typed; restarted on the same port: re-open works")
    func serverStopsAndRestarts() async throws {
        // Below the ephemeral range, so no other test's server takes it while this one is down.
        let server = try await TestPorts.start { try await EnvelopeServer.start(port: $0) }
        let port = server.port
        let driver = WebSocketDriver(url: server.url)
        let events = DriverEvents()
        try await driver.open(onEvent: events.handler)
        #expect(try await driver.request("ack", "before", timeout: .seconds(10)).value == "before")

        await server.stop()
        #expect(try await events.nextClose() != nil)
        let error = await #expect(throws: WebSocketDriverError.self) { try await driver.open { _ in } }
        guard case .cannotOpen(let url, _)? = error else {
            Issue.record("expected .cannotOpen, got \(String(describing: error))")
            return
        }
        #expect(url == server.url.absoluteString)

        let restarted = try await TestPorts.restart(on: port) { try await EnvelopeServer.start(port: $0) }
        do {
            try await driver.open { _ in }
            #expect(try await driver.request("ack", "after", timeout: .seconds(10)).value == "after")
            await driver.close()
        } catch {
            await restarted.stop()
            throw error
        }
        await restarted.stop()
        #expect(events.closeReasons.count == 1)
    }

    static let garbage: [PlainWebSocketMessage] = [
        .text("not json"),
        .text("[1,2,3]"),
        .text(#"{"type":"bogus"}"#),
        .text(#"{"type":"reply","id":"seven"}"#),
        .text(#"{"type":"event"}"#),
        .text(String(repeating: "[", count: 100_000)),
        .binary(Data([0, 1, 2, 255])),
    ]

    @Test("a malformed message from the server closes the connection cleanly; re-open works", arguments: garbage)
    func malformed(_ garbage: PlainWebSocketMessage) async throws {
        try await EnvelopeServer.with(setup: Self.troublemaker(garbage: garbage)) { server in
            let driver = WebSocketDriver(url: server.url)
            let events = DriverEvents()
            try await driver.open(onEvent: events.handler)
            let error = await #expect(throws: WebSocketDriverError.self) {
                try await driver.request("garbage", nil, timeout: .seconds(30))
            }
            guard case .closed(let reason)? = error else {
                Issue.record("expected .closed, got \(String(describing: error))")
                return
            }
            #expect(reason.hasPrefix("the server broke the protocol: malformed envelope"))
            #expect(try await events.nextClose() == reason)

            try await driver.open { _ in }
            #expect(try await driver.request("ack", "fine", timeout: .seconds(10)).value == "fine")
            await driver.close()
            #expect(events.closeReasons.count == 1)
        }
    }

    @Test("a server that accepts TCP but never upgrades: open times out, typed")
    func openTimeout() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        var options = WebSocketDriver.Options()
        options.connectTimeout = .milliseconds(200)
        let url = URL(string: "ws://127.0.0.1:\(listener.port)/ws")!
        let driver = WebSocketDriver(url: url, options: options)
        await #expect(throws: WebSocketDriverError.openTimedOut(url: url.absoluteString, after: .milliseconds(200))) {
            try await withTimeout(10, "the open timeout") { try await driver.open { _ in } }
        }
    }

    @Test("cancelling the task in open ends the opening; the driver can open again")
    func cancelOpen() async throws {
        let listener = try SilentListener()
        defer { listener.stop() }
        var options = WebSocketDriver.Options()
        options.connectTimeout = .seconds(2)
        let url = URL(string: "ws://127.0.0.1:\(listener.port)/ws")!
        let driver = WebSocketDriver(url: url, options: options)
        let opening = Task { try await driver.open { _ in } }
        opening.cancel()
        await #expect(throws: CancellationError.self) {
            try await withTimeout(10, "the cancelled open") { try await opening.value }
        }
        // Idle again: the next open is not refused as `alreadyOpen`; it runs into its timeout.
        await #expect(throws: WebSocketDriverError.openTimedOut(url: url.absoluteString, after: .seconds(2))) {
            try await withTimeout(10, "the second open") { try await driver.open { _ in } }
        }
    }

    @Test("misuse is refused, typed: bad URL, not open, already open")
    func misuse() async throws {
        let bad = WebSocketDriver(url: URL(string: "ftp://example.com/ws")!)
        await #expect(throws: WebSocketDriverError.invalidURL("ftp://example.com/ws")) { try await bad.open { _ in } }
        await #expect(throws: DriverError.notConnected) { try await bad.send("x", nil) }
        await #expect(throws: WebSocketDriverError.notOpen) { try await bad.request("x", nil, timeout: .seconds(1)) }
        try await EnvelopeServer.with { server in
            let driver = WebSocketDriver(url: server.url)
            try await driver.open { _ in }
            await #expect(throws: WebSocketDriverError.alreadyOpen) { try await driver.open { _ in } }
            await driver.close()
        }
        #expect(WebSocketDriverError.notOpen.description.contains("not open"))
    }

    /// A header NIO would stop the process on (a non-ASCII name) or refuse when writing (a
    /// control character) is refused before anything connects: by the driver's `open`, and by
    /// the connection factory for every kind of connection.
    @Test("a header that cannot be sent is refused, typed, before connecting")
    func headerThatCannotBeSent() async throws {
        var options = WebSocketDriver.Options()
        options.headers = [(name: "Überschrift", value: "1")]
        let driver = WebSocketDriver(url: URL(string: "ws://127.0.0.1:9/ws")!, options: options)
        await #expect {
            try await driver.open { _ in }
        } throws: { error in
            guard case WebSocketDriverError.invalidHeader(let why) = error else { return false }
            return why.contains(#""Überschrift" is not an HTTP token"#)
        }
        var configuration = ConnectionConfiguration(url: URL(string: "ws://127.0.0.1:9/ws")!)
        configuration.headers = [ConnectionHeader(name: "X-A", value: "a\r\nInjected: 1")]
        for factory in [DriverConnectionFactory.plainWebSocket, .socketIO, .failover()] {
            #expect {
                _ = try factory.makeConnection(for: configuration)
            } throws: { error in
                guard case ConnectionError.invalidConfiguration(let why) = error else { return false }
                return why.contains(#"header "X-A" has a control character"#)
            }
        }
    }
}
