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

extension BackgroundChild {
    /// `sio serve --port 0` and `arguments`, once it says it listens: the child and its URL. A
    /// child that does not get there within a minute is killed. The caller stops it, then
    /// ``remove()``s it.
    static func serving(_ sio: String, _ arguments: [String] = [], environment: [String: String]) async throws -> (server: BackgroundChild, url: String) {
        let server = try BackgroundChild(sio, ["serve", "--port", "0"] + arguments, environment: environment)
        do {
            let ready = try await server.line(containing: "sio serve: listening on", within: 60)
            return (server, try #require(ready.split(separator: " ").last.map(String.init)))
        } catch {
            server.signal(SIGKILL)
            _ = await server.exit()
            server.remove()
            throw error
        }
    }

    /// `sio emit URL echo "hi" --ack` against the server at `url`, expected to succeed.
    static func expectEcho(_ sio: String, _ url: String, environment: [String: String]) async throws {
        let emit = try await withTimeout(30, "sio emit") {
            try await ChildProcess.run(sio, ["emit", url, "echo", #""hi""#, "--ack"], environment: environment)
        }
        #expect(emit.status == 0, "sio emit: \(emit.stderr)")
    }
}
