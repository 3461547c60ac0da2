import Foundation
import SocketIO
import SwitchboardTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `sio serve --metrics`: a known workload, then a scrape over HTTP in Prometheus's text format;
/// `promtool check metrics` on it when promtool is installed (scripts/test puts Debian's in
/// `.tools/`).
@Suite struct MetricsEndpointTests {
    /// The value of the series `series` (name and labels, as printed), or nil.
    static func value(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func scrape(_ url: URL) async throws -> String {
        let (data, response) = try await URLSession.shared.data(from: url)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func aScrapeAfterAKnownWorkloadCountsIt() async throws {
        guard let sio = SioBinary.orSkip("aScrapeAfterAKnownWorkloadCountsIt") else { return }
        let (environment, home) = try ChildProcess.isolatedEnvironment()
        defer { try? FileManager.default.removeItem(at: home) }
        let server = try BackgroundChild(sio, ["serve", "--port", "0", "--metrics", "127.0.0.1:0"], environment: environment)
        defer { server.remove() }
        let metricsLine = try await server.line(containing: "sio serve: metrics on", within: 60)
        let metricsURL = try #require(metricsLine.split(separator: " ").last.flatMap { URL(string: String($0)) })
        let ready = try await server.line(containing: "sio serve: listening on", within: 60)
        let url = try #require(ready.split(separator: " ").last.flatMap { URL(string: String($0)) })

        // 5 echoes (answered with 5 events) and 3 acks, over WebSocket; the last ack comes back
        // after the server has read everything before it.
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        let manager = try Manager(url: url, configuration: configuration)
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        try await withTimeout(15, "connect") { try await socket.connect() }
        for i in 0..<5 { try socket.emit("echo", .number(Double(i))) }
        _ = try await echoes.first(5, within: 15, "5 echoes")
        for i in 0..<3 { _ = try await socket.timeout(.seconds(5)).emitWithAck("ack", .number(Double(i))) }

        let text = try await Self.scrape(metricsURL)
        #expect(Self.value(#"socketio_events_received_total{namespace="/"}"#, in: text) == 8, "\(text)")
        #expect(Self.value(#"socketio_acks_answered_total{namespace="/"}"#, in: text) == 3)
        #expect(Self.value(#"socketio_connections_total{namespace="/"}"#, in: text) == 1)
        #expect(Self.value(#"socketio_sockets_connected{namespace="/"}"#, in: text) == 1)
        #expect(Self.value(#"engineio_sessions_total{transport="websocket"}"#, in: text) == 1)
        #expect(Self.value("engineio_sessions_open", in: text) == 1)
        #expect((Self.value(#"socketio_events_sent_total{namespace="/"}"#, in: text) ?? 0) >= 5, "the echoes went out")
        #expect((Self.value(#"engineio_received_bytes_total{transport="websocket"}"#, in: text) ?? 0) > 0)
        #expect(!text.contains("echo\""), "no event name is a label")
        #expect(text.contains("# HELP socketio_events_received_total Events received from clients."))
        await manager.close()

        if let promtool = Self.promtool() {
            let check = try await withTimeout(30, "promtool check metrics") {
                try await ChildProcess.run(promtool, ["check", "metrics"], input: text, environment: environment)
            }
            #expect(check.status == 0, "promtool: \(check.status)\n\(check.stdout)\(check.stderr)")
        } else {
            print("⚠️ MetricsEndpointTests: promtool not found (scripts/test installs it into .tools/): the Prometheus lint was skipped")
        }
        server.signal(SIGTERM)
        let status = try await withTimeout(10, "sio serve stops") { await server.exit() }
        #expect(status == 0, "sio serve: \(server.stderr)")
    }

    /// promtool from SWITCHBOARD_PROMTOOL, the package's `.tools/`, or the PATH.
    static func promtool() -> String? {
        var candidates: [String] = []
        if let configured = ProcessInfo.processInfo.environment["SWITCHBOARD_PROMTOOL"] { candidates.append(configured) }
        candidates.append(SioBinary.packageRoot.appendingPathComponent(".tools/prometheus/usr/bin/promtool").path)
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/promtool" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
