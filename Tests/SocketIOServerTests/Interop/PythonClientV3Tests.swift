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
        try await DemoServer.with({
            $0.allowEIO3 = true
            $0.pingInterval = .seconds(1)
            $0.pingTimeout = .seconds(5)
        }) { demo in
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
