import Foundation
#if canImport(Glibc)
import Glibc
#endif
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

    /// Whether the network-namespace tests may run here (they change the machine's network
    /// under the whole test process); prints a loud skip line when not.
    static func enabled(_ test: String) -> Bool {
        // The system's network changes under the whole test process: every manager in it would
        // react. `scripts/test` runs the suite one test at a time and turns this on.
        guard ProcessInfo.processInfo.environment["SWITCHBOARD_NETNS_TESTS"] == "1" else {
            FileHandle.standardError.write(Data(
                "⚠️ SKIPPED \(test): set SWITCHBOARD_NETNS_TESTS=1 and run tests one at a time (scripts/test does)\n".utf8))
            return false
        }
        return true
    }

    /// Runs `body` with the network, the server in it and a connected `/ticker` socket.
    static func withTicker(
        _ test: String,
        _ body: @Sendable (TestNetwork, Manager, Socket, AsyncStream<SocketEvent>) async throws -> Void
    ) async throws {
        guard enabled(test) else { return }
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

    /// With the test's link down its /24 is gone, and the test range's `unreachable` route
    /// answers at once: nothing for the range follows the default route off the machine.
    @Test func withTheLinkDownTheTestRangeIsUnreachable() async throws {
        guard Self.enabled("withTheLinkDownTheTestRangeIsUnreachable"),
              let network = try await TestNetwork.make(for: "withTheLinkDownTheTestRangeIsUnreachable") else { return }
        do {
            #expect(Self.connectError(to: network.serverAddress) == EINPROGRESS, "reachable while the link is up")
            try await network.run(["link", "set", network.hostLink, "down"])
            // The kernel's answer for an `unreachable` route: EHOSTUNREACH ("No route to host").
            #expect(Self.connectError(to: network.serverAddress) == EHOSTUNREACH, "unreachable, at once")
            let route = try await ChildProcess.run(network.ip, ["route", "get", network.serverAddress])
            #expect(route.status != 0 && route.stderr.contains("No route to host"), "route: \(route.stdout) \(route.stderr)")
        } catch {
            await network.remove()
            throw error
        }
        await network.remove()
    }

    /// The `errno` of a non-blocking TCP connect to `address`:9 — `EINPROGRESS` when a route
    /// leads there, `EHOSTUNREACH` when an `unreachable` route answers (never a wait).
    static func connectError(to address: String) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = in_port_t(UInt16(9).bigEndian)
        target.sin_addr.s_addr = inet_addr(address)
        let result = withUnsafePointer(to: &target) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result == 0 ? 0 : errno
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
