import NIOConcurrencyHelpers
import SocketIOProtocol
import SwitchboardTestSupport
import Testing
@testable import SocketIOServer

/// Channels coming and going over real WebSockets: clients that close their channels do not fill
/// the server's table for the length of the expiry, and their closed transports leave one expiry
/// timer armed, not one each; a forgotten channel is freed though its handlers use it.
/// (`sio bench --churn 200 --clients 300 --churn-kind channel/ws` found every new channel refused,
/// "too many channels (10000)", after 10,000 had closed within two minutes; the server's memory
/// growing with a pending timer for every closed transport; and, once channels were let go, still
/// growing by every channel the demo's handlers had ever held.)
@Suite struct ChannelChurnTests {
    /// The channels the test watches, without holding them.
    final class Watched: Sendable {
        struct Weak: Sendable { weak var channel: ReliableChannel? }
        private let channels = NIOLockedValueBox<[String: Weak]>([:])
        func watch(_ channel: ReliableChannel) {
            channels.withLockedValue { $0[channel.id] = Weak(channel: channel) }
        }
        /// The ids of the watched channels still alive.
        var alive: Set<String> {
            Set(channels.withLockedValue { $0 }.compactMap { id, weak in weak.channel == nil ? nil : id })
        }
    }

    /// Opens channel `name` on a new WebSocket (a resume from 0) and checks it was taken.
    static func open(_ name: String, port: Int) async throws -> RawWebSocket {
        let socket = try await RawWebSocket.open(port: port, target: "/ws?channel=\(name)")
        try socket.send(text: #"{"type":"resume","channel":"\#(name)","received":0}"#)
        #expect(try await socket.nextText("resumed") == #"{"type":"resumed","channel":"\#(name)","received":0}"#)
        return socket
    }

    @Test func closedChannelsMakeRoomForNewOnesAndArmOneExpiryTimer() async throws {
        let clock = ManualClock()
        let server = SocketIOServer(logger: ReliableChannelFlowTests.silent)
        let channels = ReliableChannels(server: server, maxChannels: 2, expiry: .seconds(120), clock: clock)
        let watched = Watched()
        channels.onChannel { channel in
            // Like the demo's: the handler answers on its own channel, so it holds it.
            channel.onRequest("echo") { data in
                try channel.send("echo", data)
                return [data]
            }
            watched.watch(channel)
        }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)

        // Five clients in turn, each opening a channel and going away; the clock never moves, so
        // nothing expires: each new channel takes the place of the one detached longest ago.
        for round in 1...5 {
            let socket = try await Self.open("churn\(round)", port: running.port)
            socket.drop()
            try await withTimeout(10, "the server seeing churn\(round)'s transport close") {
                while channels.transition({ $0.table.channels["churn\(round)"]?.attachment }) != nil { await Task.yield() }
            }
        }
        #expect(channels.count == 2)
        #expect(channels.channel("churn4") != nil && channels.channel("churn5") != nil, "the newest are kept")
        #expect(channels.channel("churn1") == nil, "what was forgotten goes with what the app held")
        #expect(watched.alive == ["churn4", "churn5"], "the forgotten channels are freed")
        #expect(clock.sleeperDeadlines == [.seconds(120) + .milliseconds(1)], "one expiry timer for the five")

        // Two clients that stay: every channel is carried, so a third is refused.
        let staying = [try await Self.open("live1", port: running.port), try await Self.open("live2", port: running.port)]
        let refused = try await RawWebSocket.open(port: running.port, target: "/ws?channel=live3")
        try refused.send(text: #"{"type":"resume","channel":"live3","received":0}"#)
        #expect(try await refused.nextText("the refusal") == #"{"type":"error","message":"too many channels (2)"}"#)
        try await refused.waitForClose()
        for socket in staying { socket.drop() }
        await running.stop()
    }

    /// A send waiting for room in a channel that expires hears at once that the channel is gone,
    /// instead of waiting out its deadline.
    @Test func aSendWaitingForRoomInAChannelThatExpiresFailsAtOnce() async throws {
        let clock = ManualClock()
        let server = SocketIOServer(logger: ReliableChannelFlowTests.silent)
        let channels = ReliableChannels(server: server, expiry: .seconds(120), window: 1, clock: clock)
        let opened = AsyncStream<ReliableChannel>.makeStream()
        channels.onChannel { opened.continuation.yield($0) }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start(host: "127.0.0.1", port: 0)

        let socket = try await Self.open("full", port: running.port)
        let channel = try #require(try await opened.stream.first(1, within: 10, "the channel").first)
        try channel.send("first")  // the window of 1 is full: the client acknowledges nothing
        let waiting = Task { () -> ReliableChannelError? in
            do throws(ReliableChannelError) {
                try await channel.send("second", waitingUpTo: .seconds(600))
                return nil
            } catch {
                return error
            }
        }
        await clock.waitForSleeper(dueAt: .seconds(600))
        socket.drop()
        await clock.waitForSleeper(dueAt: .seconds(120) + .milliseconds(1))
        clock.advance(by: .seconds(121))
        let outcome = try await withTimeout(10, "the waiting send") { await waiting.value }
        #expect(outcome == .channelGone)
        await running.stop()
    }
}
