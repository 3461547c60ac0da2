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

/// The programs in `Examples/` (the snippets of the README and the DocC articles, whole) run
/// against `sio serve` on port 3000, as the README tells a reader to, and print what their
/// comments say.
@Suite(.serialized) struct ExamplesTests {
    /// What each example must print, line by line (each expected line is the start of a line).
    static let expectations: [(example: String, lines: [String])] = [
        ("ClientExample", [
            #"echo acked: ["hello"]"#,
            #"echoed: ["hello", {"photo":{"base64":"iVBORw=="}}]"#,
            "photo bytes: 4",
            #"the server asks: ["question"]"#,
            #"the server heard: ["thanks"]"#,
            "order: A-17 9.5",
            #"receipt: [{"id":"A-17"}]"#,
        ]),
        ("PlatformExample", [
            "one connection: true",
            #"echo: {"text":"hi"}"#,
            #"reply: ["ping"]"#,
            #"chat reply: ["hello"]"#,
            #"order screen: "Order placed""#,
            #"order screen: "Order shipped""#,
            #"order screen: "Order delivered""#,
            #"shared by: "ada""#,
            "statistics: MessageCenterStatistics(dispatched: 6, duplicates: 1, rejected: 1)",
            #"channel reply: ["hi"]"#,
            #"channel echo: "hi""#,
            "live status: connected no error",
        ]),
        ("PlatformLayerExample", [
            #"update: "Order placed""#,
            "shared: true",
            #"receipt: [{"items":["A-17"],"total":9.5}]"#,
            #"screen: ["from a screen"]"#,
            #"built: ["hello"]"#,
            #"in memory: "hello, ada""#,
        ]),
        ("ServerExample", [
            "listening on http://127.0.0.1:3001",
            #"echo acked: ["hi server"]"#,
        ]),
        ("MountedExample", [
            #"echo acked: ["mounted"]"#,
            "the application stopped",
        ]),
    ]

    @Test func theExamplesRunAgainstSioServeAndPrintWhatTheySay() async throws {
        guard let sio = SioBinary.orSkip("theExamplesRunAgainstSioServeAndPrintWhatTheySay") else { return }
        var binaries: [String: String] = [:]
        for (example, _) in Self.expectations {
            guard let path = SioBinary.orSkip("theExamplesRunAgainstSioServeAndPrintWhatTheySay", example) else { return }
            binaries[example] = path
        }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try BackgroundChild(sio, ["serve", "--port", "3000"], environment: environment)
        defer { server.remove() }
        do {
            _ = try await server.line(containing: "sio serve: listening on", within: 60)
        } catch {
            server.signal(SIGKILL)
            _ = await server.exit()
            Issue.record("sio serve did not start on port 3000 (is another server using it?): \(server.stderr)")
            return
        }
        for (example, lines) in Self.expectations {
            let binary = try #require(binaries[example])
            let result = try await withTimeout(60, example) {
                try await ChildProcess.run(binary, [], environment: environment)
            }
            #expect(result.status == 0, "\(example) exited \(result.status): \(result.stderr)")
            let printed = result.stdout.split(separator: "\n").map(String.init)
            for line in lines {
                #expect(printed.contains { $0.hasPrefix(line) }, "\(example) did not print \(line); it printed:\n\(result.stdout)")
            }
        }
        server.signal(SIGTERM)
        let status = try await withTimeout(10, "sio serve stops") { await server.exit() }
        #expect(status == 0, "sio serve: \(server.stderr)")
    }
}
