import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Running out of file descriptors, in child processes with a low `ulimit -n`: the server keeps
/// a reserve and refuses connections past it (logging it once) and recovers; a client says it
/// is out of descriptors; `sio bench` refuses up front. Nothing crashes or hangs.
@Suite struct DescriptorLimitTests {
    /// `sio` under `ulimit -n limit`.
    static func limited(_ sio: String, _ limit: Int, _ arguments: [String]) -> (String, [String]) {
        ("/bin/sh", ["-c", "ulimit -n \(limit) && exec \"$0\" \"$@\"", sio] + arguments)
    }

    /// A plain TCP connection to 127.0.0.1:`port` (it sends nothing: the server holds it until
    /// its request-head timeout), or nil when it could not be made.
    static func openConnection(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    @Test("a server flooded past its descriptor limit refuses the rest, says so once, and serves again once they leave")
    func serverRefusesAndRecovers() async throws {
        guard let sio = SioBinary.orSkip("serverRefusesAndRecovers") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let (shell, arguments) = Self.limited(sio, 200, ["serve", "--port", "0"])
        let server = try BackgroundChild(shell, arguments, environment: environment)
        defer { server.remove() }
        var flood: [Int32] = []
        do {
            let ready = try await server.line(containing: "sio serve: listening on", within: 60)
            let url = try #require(ready.split(separator: " ").last.map(String.init))
            let port = try #require(URL(string: url)?.port)
            for _ in 0..<300 {
                if let fd = Self.openConnection(port: port) { flood.append(fd) }
            }
            _ = try await server.line(containing: "refusing new connections", within: 30)
            // Still serving what it holds, and alive: a connection past the reserve was closed,
            // the process did not run dry.
            #expect(kill(server.pid, 0) == 0, "the server is still running")
            for fd in flood { close(fd) }
            flood.removeAll()
            let emit = try await withTimeout(30, "sio emit after the flood") {
                try await ChildProcess.run(sio, ["emit", url, "ack", #""after""#, "--ack"], environment: environment)
            }
            #expect(emit.status == 0, "stderr: \(emit.stderr)")
            #expect(emit.stdout == "[\"after\"]\n")
            _ = try await server.line(containing: "accepting connections again", within: 30)
            // Once per run of refusals, not once per connection refused (about 100 here). A
            // refused connection is closed as it comes, and its descriptor freed: on a loaded
            // machine a connection accepted between two refusals (the run ends, "accepting
            // connections again") can start a second run during the flood.
            let refusals = server.stderr.split(separator: "\n").count { $0.contains("refusing new connections") }
            #expect((1...3).contains(refusals), "said once per run of refusals: \(refusals)")
            server.signal(SIGTERM)
            let status = try await withTimeout(10, "sio serve exits") { await server.exit() }
            #expect(status == 0, "stderr: \(server.stderr.suffix(2000))")
        } catch {
            for fd in flood { close(fd) }
            server.signal(SIGKILL)
            _ = await server.exit()
            throw error
        }
    }

    @Test("a client with no descriptor to spare fails its connect with an error that says so")
    func clientSaysOutOfDescriptors() async throws {
        guard let sio = SioBinary.orSkip("clientSaysOutOfDescriptors") else { return }
        let result = try await EmbeddedDemoServer.with { _, url in
            // 32 descriptors: all of them are the reserve, none is left for a connection.
            let (shell, arguments) = Self.limited(sio, 32, ["emit", url.absoluteString, "ack", #""x""#, "--ack", "--transport", "websocket"])
            return try await withTimeout(30, "sio emit under ulimit -n 32") { try await ChildProcess.run(shell, arguments) }
        }
        #expect(result.status == 1)
        #expect(result.stderr.contains("out of file descriptors"), "stderr: \(result.stderr)")
    }

    @Test("sio bench refuses up front a run that does not fit the descriptor limit, saying how many clients fit")
    func benchRefusesUpFront() async throws {
        guard let sio = SioBinary.orSkip("benchRefusesUpFront") else { return }
        let (shell, arguments) = Self.limited(sio, 300, ["bench", "--clients", "200", "--no-python"])
        let result = try await withTimeout(30, "sio bench under ulimit -n 300") { try await ChildProcess.run(shell, arguments) }
        #expect(result.status == 1)
        #expect(result.stderr.contains("200 clients need about 400 file descriptors"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("clients fit"), "stderr: \(result.stderr)")
    }

    @Test("sio bench refuses any number of clients too large to count descriptors for, without a crash", arguments: [
        ["bench", "--clients", "\(Int.max)", "--no-python"],
        ["bench", "http://127.0.0.1:9", "--clients", "\(Int.max)", "--no-python"],
        ["bench", "--clients", "5000000000000000000", "--no-python"],
    ])
    func benchRefusesAnAbsurdClientCount(_ arguments: [String]) async throws {
        guard let sio = SioBinary.orSkip("benchRefusesAnAbsurdClientCount") else { return }
        let (shell, limited) = Self.limited(sio, 300, arguments)
        let result = try await withTimeout(30, "sio bench under ulimit -n 300") { try await ChildProcess.run(shell, limited) }
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("clients need about"), "stderr: \(result.stderr)")
    }
}
