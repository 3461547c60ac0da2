import Foundation
import SwitchboardTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real network for path-change tests: a network namespace joined to this one by a veth
/// pair, with `ip` from iproute2. The server runs inside the namespace; the test process (the
/// client) stays outside, where its address and link are changed under it.
///
/// Root only (Linux): where that or `ip netns` is not available, ``make(for:)`` prints a loud
/// skip line and returns nil.
struct TestNetwork: Sendable {
    let ip: String
    let namespace: String
    /// The client's end (in this namespace) and the server's end (in `namespace`).
    let hostLink: String
    let serverLink: String
    /// `10.x.y.1` (the client's first address), `.2` (the server), `.3` (the client's next).
    let clientAddress: String
    let serverAddress: String
    let nextClientAddress: String

    static func make(for test: String) async throws -> TestNetwork? {
        func skip(_ why: String) -> TestNetwork? {
            FileHandle.standardError.write(Data("⚠️ SKIPPED \(test): \(why)\n".utf8))
            return nil
        }
        #if os(Linux)
        guard geteuid() == 0 else { return skip("needs root for ip netns") }
        guard let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return skip("no ip (iproute2)")
        }
        let tag = Int(getpid()) % 100_000
        let subnet = "\(Self.range.prefix).\(tag % 250)"
        let network = TestNetwork(
            ip: ip, namespace: "sbt\(tag)", hostLink: "sbt\(tag)h", serverLink: "sbt\(tag)s",
            clientAddress: "\(subnet).1", serverAddress: "\(subnet).2", nextClientAddress: "\(subnet).3"
        )
        await network.remove()  // what a killed earlier run left
        do {
            try await network.run(["netns", "add", network.namespace])
        } catch {
            return skip("ip netns add failed (\(error))")
        }
        // Before any link goes down or address away: traffic for the test range must never
        // follow the default route off the machine. The connected /24 is more specific and
        // wins while it exists; without it, this route answers "network unreachable".
        try await network.holdRangeOnMachine()
        try await network.run(["link", "add", network.hostLink, "type", "veth", "peer", "name", network.serverLink])
        try await network.run(["link", "set", network.serverLink, "netns", network.namespace])
        // A secondary address takes over when the primary is deleted (as a new Wi-Fi lease would).
        try "1".write(toFile: "/proc/sys/net/ipv4/conf/\(network.hostLink)/promote_secondaries", atomically: false, encoding: .utf8)
        try await network.run(["addr", "add", "\(network.clientAddress)/24", "dev", network.hostLink])
        try await network.run(["link", "set", network.hostLink, "up"])
        try await network.inNamespace(["addr", "add", "\(network.serverAddress)/24", "dev", network.serverLink])
        try await network.inNamespace(["link", "set", network.serverLink, "up"])
        try await network.inNamespace(["link", "set", "lo", "up"])
        return network
        #else
        return skip("network namespaces are Linux only")
        #endif
    }

    /// Runs `ip arguments`; throws with its output when it fails.
    func run(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run(ip, arguments)
        guard result.status == 0 else {
            throw ChildProcessError("ip \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
    }

    func inNamespace(_ arguments: [String]) async throws {
        try await run(["netns", "exec", namespace, ip] + arguments)
    }

    /// The whole range the tests take their subnets from (10.231.0.0/16).
    static let range = (prefix: "10.231", cidr: "10.231.0.0/16")

    /// Adds an `unreachable` route for the whole test range in this (the root) namespace,
    /// unless there is one already (another test process's).
    func holdRangeOnMachine() async throws {
        let routes = try await ChildProcess.run(ip, ["route", "show", "type", "unreachable", Self.range.cidr])
        guard !routes.stdout.contains(Self.range.prefix) else { return }
        try await run(["route", "add", "unreachable", Self.range.cidr])
    }

    /// Deletes the namespace (and with it both ends of the pair), then the unreachable route —
    /// after the links are gone, so nothing of the range is ever routed off the machine.
    func remove() async {
        _ = try? await ChildProcess.run(ip, ["netns", "del", namespace])
        _ = try? await ChildProcess.run(ip, ["link", "del", hostLink])
        _ = try? await ChildProcess.run(ip, ["route", "del", "unreachable", Self.range.cidr])
    }
}
