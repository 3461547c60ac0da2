import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SwitchboardTestSupport
import Testing

/// The network changes under a listening client, for real: `sio serve` inside a network
/// namespace, this process's `Manager` outside with the system network monitor (netlink), the
/// demo's `/ticker` (an event every 20 ms, recovery on) between them.
///
/// Before the monitor, a client whose address vanished stayed silent until the heartbeat failed
/// (pingInterval + pingTimeout: 45 s with these defaults). The times printed are measurements,
/// not assertions.
@Suite(.serialized) struct LinkChangeTests {
    static func configuration() -> Manager.Configuration {
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        configuration.connectTimeout = .seconds(2)
        configuration.reconnectionDelay = .milliseconds(100)
        configuration.reconnectionDelayMax = .seconds(1)
        return configuration
    }

    /// Runs `body` with the network, the server in it and a connected `/ticker` socket.
    static func withTicker(
        _ test: String,
        _ body: @Sendable (TestNetwork, Manager, Socket, AsyncStream<SocketEvent>) async throws -> Void
    ) async throws {
        // The system's network changes under the whole test process: every manager in it would
        // react. `scripts/test` runs the suite one test at a time and turns this on.
        guard ProcessInfo.processInfo.environment["SWITCHBOARD_NETNS_TESTS"] == "1" else {
            FileHandle.standardError.write(Data(
                "⚠️ SKIPPED \(test): set SWITCHBOARD_NETNS_TESTS=1 and run tests one at a time (scripts/test does)\n".utf8))
            return
        }
        guard let sio = SioBinary.orSkip(test), let network = try await TestNetwork.make(for: test) else { return }
        let server = try BackgroundChild(network.ip, [
            "netns", "exec", network.namespace, sio, "serve", "--host", network.serverAddress, "--port", "0",
        ])
        do {
            let line = try await server.line(containing: "sio serve: listening on", within: 30)
            let url = try #require(line.split(separator: " ").last.flatMap { URL(string: String($0)) })
            let manager = try Manager(url: url, configuration: configuration())
            let ticker = manager.socket(namespace: "/ticker")
            let ticks = ticker.events(named: "tick")
            try await withTimeout(30, "connect") { try await ticker.connect() }
            try await body(network, manager, ticker, ticks)
            await manager.close()
        } catch {
            server.signal(SIGKILL)
            _ = await server.exit()
            server.remove()
            await network.remove()
            throw error
        }
        server.signal(SIGTERM)
        _ = await server.exit()
        server.remove()
        await network.remove()
    }

    /// The tick numbers of `events`.
    static func numbers(_ events: [SocketEvent]) -> [Int] {
        events.compactMap { $0.items.first?.intValue }
    }

    /// What a Wi-Fi → cellular switch does to a socket: its address is gone, the TCP connection
    /// dead for good, and nothing tells it.
    @Test func aReplacedAddressIsNoticedAtOnceAndNothingIsMissed() async throws {
        try await Self.withTicker("aReplacedAddressIsNoticedAtOnceAndNothingIsMissed") { network, manager, ticker, ticks in
            let managerEvents = manager.events
            let connects = ticker.events(named: "connect")
            let before = try await ticks.first(10, within: 30, "ticks before the change")
            #expect(manager.networkPath?.interfaces.contains { $0.addresses.contains(network.clientAddress) } == true,
                    "the system monitor sees the test's link")

            let changed = ContinuousClock.now
            try await network.run(["addr", "add", "\(network.nextClientAddress)/24", "dev", network.hostLink])
            try await network.run(["addr", "del", "\(network.clientAddress)/24", "dev", network.hostLink])

            let close = try await managerEvents.firstMatch(within: 30, "the connection closing") {
                if case .close = $0 { return true }
                return false
            }
            if case .close(let reason) = close {
                #expect(reason == .transportError("the network path changed"),
                        "closed for the path change, not by the heartbeat (ping timeout): \(reason)")
            }
            _ = try await connects.first(1, within: 30, "the reconnect")
            let first = try await ticks.first(1, within: 30, "the first tick after")
            let measured = ContinuousClock.now - changed
            #expect(ticker.recovered, "the server kept the session: nothing missed")
            let after = try await ticks.first(50, within: 30, "ticks after the change")
            let all = Self.numbers(before + first + after)
            #expect(all == Array(all[0]..<(all[0] + all.count)), "every tick once, in order")
            print("measured: receiving again \(measured) after the address was replaced (heartbeat alone: up to 45 s)")
        }
    }

    /// A link down for 15 s, then back: no attempt is spent on the dead link's route forever,
    /// and the session comes back at once when the link does.
    @Test func aLinkDownFor15SecondsComesBackAtOnceWithNothingMissed() async throws {
        try await Self.withTicker("aLinkDownFor15SecondsComesBackAtOnceWithNothingMissed") { network, _, ticker, ticks in
            let connects = ticker.events(named: "connect")
            let before = try await ticks.first(10, within: 30, "ticks before the outage")
            try await network.run(["link", "set", network.hostLink, "down"])
            try await Task.sleep(for: .seconds(15))  // the outage itself, not a wait for anything
            let up = ContinuousClock.now
            try await network.run(["link", "set", network.hostLink, "up"])
            _ = try await connects.first(1, within: 30, "the reconnect")
            let first = try await ticks.first(1, within: 30, "the first tick after")
            let measured = ContinuousClock.now - up
            #expect(ticker.recovered, "the server kept the session through the outage")
            let after = try await ticks.first(50, within: 30, "ticks after the outage")
            let all = Self.numbers(before + first + after)
            #expect(all == Array(all[0]..<(all[0] + all.count)), "every tick once, in order")
            print("measured: receiving again \(measured) after the link came back")
        }
    }
}
