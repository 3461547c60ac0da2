import Foundation
import SocketIOServer
import Testing

/// python-socketio 4.x's client (Engine.IO v3, Socket.IO protocol v4 — what socket.io 2.x's
/// client speaks) against the server with `allowEIO3`, over every transport setup; and refused
/// without it, as socket.io's server refuses it by default.
@Suite("python-socketio 4.x client against the server (allowEIO3)", .serialized)
struct PythonClientV3Tests {
    @Test("every scenario passes", arguments: ["polling", "websocket", "upgrade"])
    func scenarios(transport: String) async throws {
        // In v3 the client pings, every pingInterval, and python-engineio 3.x gives up when the
        // pong has not come by its next ping: with a 1 s interval a server starved for a second
        // (the whole suite in parallel on two cores) lost the session (seen: "PONG response has not
        // been received, aborting"). The default interval leaves room; the heartbeat has tests of
        // its own.
        try await DemoServer.with({ $0.allowEIO3 = true }) { demo in
            guard let (results, log) = try await PythonClient.run(url: demo.url, transport: transport, line: .v4) else { return }
            #expect(results.map(\.scenario) == PythonClient.scenarios, "client log:\n\(log)")
            for result in results {
                #expect(result.ok, "\(result.scenario) over \(transport): \(result.detail)")
            }
            if results.contains(where: { !$0.ok }) {
                print("client_v3.py log (\(transport)):\n\(log)")
            }
        }
    }

    @Test func withoutAllowEIO3TheClientIsRefused() async throws {
        try await DemoServer.with { demo in
            guard let (results, _) = try await PythonClient.run(url: demo.url, transport: "polling", line: .v4, only: ["connect"]) else { return }
            let result = try #require(results.first)
            #expect(!result.ok, "a v3 client must not get in: \(result.detail)")
            #expect(result.detail.contains("ConnectionError"), "\(result.detail)")
        }
    }
}
