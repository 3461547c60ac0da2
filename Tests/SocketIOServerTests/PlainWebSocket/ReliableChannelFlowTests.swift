import Foundation
import Logging
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Flow control on a server channel with a window of 4: a client that sends faster than it
/// acknowledges holds the server's answers up — they wait for room and then arrive, once each and
/// in order — instead of losing them to a full window.
@Suite("Reliable channel flow control")
struct ReliableChannelFlowTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// The next `count` server events on `socket` (acknowledgements skipped), as (seq, data).
    static func events(_ count: Int, from socket: RawWebSocket) async throws -> [(UInt64, JSONValue)] {
        var events: [(UInt64, JSONValue)] = []
        while events.count < count {
            let envelope = try Envelope(parsing: try await socket.nextText("an envelope"))
            if case .event("echo", let data, let seq?) = envelope { events.append((seq, data)) }
        }
        return events
    }

    /// A server whose channels (window 4) answer `echo` with `answer`, started on a free port.
    static func start(answer: @escaping @Sendable (ReliableChannel, JSONValue) async -> Void) async throws -> RunningServer {
        let server = SocketIOServer(logger: Self.silent)
        let channels = ReliableChannels(server: server, window: 4)
        channels.onChannel { channel in
            channel.on("echo") { data in await answer(channel, data) }
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        return try await server.start(host: "127.0.0.1", port: 0)
    }

    /// A WebSocket opening channel `name` (a resume from 0, answered in kind), which then sends
    /// `echo` events `numbers` (numbered as their value).
    static func open(_ name: String, port: Int, sending numbers: ClosedRange<Int>) async throws -> RawWebSocket {
        let socket = try await RawWebSocket.open(port: port, target: "/ws?channel=\(name)")
        try socket.send(text: #"{"type":"resume","channel":"\#(name)","received":0}"#)
        #expect(try await socket.nextText("resumed") == #"{"type":"resumed","channel":"\#(name)","received":0}"#)
        for number in numbers {
            try socket.send(text: #"{"type":"event","event":"echo","data":\#(number),"seq":\#(number)}"#)
        }
        return socket
    }

    @Test func answersWaitForRoomAndArriveOnceInOrder() async throws {
        let running = try await Self.start { channel, data in try? await channel.send("echo", data, waitingUpTo: .seconds(60)) }
        let socket = try await Self.open("flow", port: running.port, sending: 1...10)
        // A window's worth arrives; the rest waits for the client's acknowledgements.
        var seen = try await Self.events(4, from: socket)
        try socket.send(text: #"{"type":"ack","seq":4}"#)
        seen += try await Self.events(4, from: socket)
        try socket.send(text: #"{"type":"ack","seq":8}"#)
        seen += try await Self.events(2, from: socket)

        #expect(seen.map(\.0) == Array(1...10), "numbered once each, in order")
        #expect(seen.map { $0.1.intValue } == Array(1...10), "every answer, in order")
        await running.stop()
    }

    /// A send waiting for room whose task is cancelled stops at once (`windowFull`, nothing
    /// sent), not when its minute is up.
    @Test func aCancelledWaitForRoomEndsAtOnce() async throws {
        let outcome = AsyncStream<Result<Void, any Error>>.makeStream()
        let running = try await Self.start { channel, data in
            guard data == 5 else {
                try? await channel.send("echo", data, waitingUpTo: .seconds(60))
                return
            }
            let waiting = Task { try await channel.send("echo", data, waitingUpTo: .seconds(60)) }
            waiting.cancel()
            outcome.continuation.yield(await waiting.result)
        }
        let socket = try await Self.open("cancel", port: running.port, sending: 1...5)
        let seen = try await Self.events(4, from: socket)
        #expect(seen.map(\.0) == Array(1...4))
        let result = try await outcome.stream.first(1, within: 10, "the cancelled send's outcome")
        let failure = result.first.flatMap { if case .failure(let error) = $0 { error as? ReliableChannelError } else { nil } }
        #expect(failure == .windowFull(window: 4), "\(result)")
        socket.drop()
        await running.stop()
    }

    /// A resume acknowledges what the client says it received: answers waiting for room go on
    /// at once on the new transport (they waited out their whole timeout before).
    @Test func aResumeMakesRoomForTheAnswersWaitingForIt() async throws {
        let running = try await Self.start { channel, data in try? await channel.send("echo", data, waitingUpTo: .seconds(60)) }
        let first = try await Self.open("move", port: running.port, sending: 1...6)
        var seen = try await Self.events(4, from: first)
        // The client moves without a word of acknowledgement; its resume says it has all four.
        // Like a client, it sends again what the server says it has not received.
        let second = try await RawWebSocket.open(port: running.port, target: "/ws?channel=move")
        try second.send(text: #"{"type":"resume","channel":"move","received":4}"#)
        guard case .resumed(_, let received) = try Envelope(parsing: try await second.nextText("resumed")) else {
            Issue.record("expected resumed")
            return
        }
        if received < 6 {
            for number in Int(received + 1)...6 {
                try second.send(text: #"{"type":"event","event":"echo","data":\#(number),"seq":\#(number)}"#)
            }
        }
        seen += try await Self.events(2, from: second)
        #expect(seen.map(\.0) == Array(1...6))
        #expect(seen.map { $0.1.intValue } == Array(1...6))
        first.drop()
        second.drop()
        await running.stop()
    }

    @Test func aClientFloodingPastThePendingLimitIsRefused() async throws {
        let server = SocketIOServer(logger: Self.silent)
        let channels = ReliableChannels(server: server, maxPendingMessages: 8)
        let release = AsyncStream<Void>.makeStream()
        channels.onChannel { channel in
            channel.on("slow") { _ in
                for await _ in release.stream { return }  // holds the handler task until the test ends
            }
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)

        let socket = try await RawWebSocket.open(port: running.port, target: "/ws?channel=flood")
        try socket.send(text: #"{"type":"resume","channel":"flood","received":0}"#)
        _ = try await socket.nextText()
        // One handled (and stuck) or not yet, eight queued: the tenth is one too many.
        for number in 1...10 {
            try socket.send(text: #"{"type":"event","event":"slow","seq":\#(number)}"#)
        }
        var refusal: String?
        while refusal == nil {
            let text = try await socket.nextText("the refusal")
            if text.hasPrefix(#"{"type":"error""#) { refusal = text }
        }
        #expect(refusal?.contains("too many messages ahead of their acknowledgements") == true)
        try await socket.waitForClose()
        release.continuation.finish()
        await running.stop()
    }
}

/// A channel no transport carries expires when its time is up, whether or not any client
/// resumes anything meanwhile (expiry used to run only inside the next resume, so an idle
/// server kept every channel of its last busy minutes, and their memory, for good).
@Suite struct ChannelExpiryTests {
    @Test func aDetachedChannelExpiresWithoutAnotherResume() async throws {
        let clock = ManualClock()
        let server = SocketIOServer(logger: ReliableChannelFlowTests.silent)
        let channels = ReliableChannels(server: server, expiry: .seconds(120), clock: clock)
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        let socket = try await ReliableChannelFlowTests.open("idle", port: running.port, sending: 1...1)
        #expect(channels.count == 1)
        socket.drop()
        // The detach asks the clock to wake it when the channel is due.
        _ = await clock.waitForSleep(1) { $0 == .seconds(120) + .milliseconds(1) }
        #expect(channels.count == 1, "kept while a resume may come")
        clock.advance(by: .seconds(121))
        try await withTimeout(10, "the channel expiring") {
            while channels.count > 0 { await Task.yield() }
        }
        #expect(channels.channel("idle") == nil)
        await running.stop()
    }
}
