import Foundation
import SwitchboardTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `sio serve --event-loops N` runs the server on exactly N event-loop threads (NIO's singleton
/// group, whose threads are named `NIO-SGLTN-…`), and refuses a count below 1.
@Suite struct ServeEventLoopsTests {
    /// The event-loop threads of process `pid`, by their names in `/proc`.
    static func eventLoopThreads(of pid: pid_t) throws -> Int {
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        return tasks.count { task in
            let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            return name?.hasPrefix("NIO-SGLTN-") == true
        }
    }

    // 3 is more than this machine's cores: the count comes from the option, not the default.
    @Test(arguments: [1, 3])
    func theServerRunsOnThatManyEventLoops(count: Int) async throws {
        guard let sio = SioBinary.orSkip("theServerRunsOnThatManyEventLoops") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let (server, url) = try await BackgroundChild.serving(sio, ["--event-loops", "\(count)"], environment: environment)
        defer { server.remove() }
        do {
            try await BackgroundChild.expectEcho(sio, url, environment: environment)
            #expect(try Self.eventLoopThreads(of: server.pid) == count)
        } catch {
            server.signal(SIGKILL)
            _ = await server.exit()
            throw error
        }
        server.signal(SIGTERM)
        let status = try await withTimeout(10, "sio serve exits") { await server.exit() }
        #expect(status == 0, "stderr: \(server.stderr)")
    }

    @Test func aCountBelowOneIsRefused() async throws {
        guard let sio = SioBinary.orSkip("aCountBelowOneIsRefused") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try await withTimeout(30, "sio serve --event-loops 0") {
            try await ChildProcess.run(sio, ["serve", "--port", "0", "--event-loops", "0"], environment: environment)
        }
        #expect(result.status == 64)
        #expect(result.stderr.contains("--event-loops must be at least 1"))
    }
}
