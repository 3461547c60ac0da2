import Foundation
import SocketIOServer
import Testing

/// python-socketio 5.x's client — an independent implementation — against the server, over
/// every transport setup (polling only, WebSocket only, polling upgraded to WebSocket).
@Suite("python-socketio 5.x client against the server", .serialized)
struct PythonClientTests {
    @Test("every scenario passes", arguments: ["polling", "websocket", "upgrade"])
    func scenarios(transport: String) async throws {
        // python-engineio's client can skip sending its `close` when it disconnects right after
        // a POST over polling; its read loop then waits for the server's next ping. A short
        // ping interval keeps that wait short (the server is not at fault: it never heard
        // the close).
        try await DemoServer.with({ $0.pingInterval = .seconds(1); $0.pingTimeout = .seconds(5) }) { demo in
            guard let (results, log) = try await PythonClient.run(url: demo.url, transport: transport) else { return }
            #expect(results.map(\.scenario) == PythonClient.scenarios, "client log:\n\(log)")
            for result in results {
                #expect(result.ok, "\(result.scenario) over \(transport): \(result.detail)")
            }
            if results.contains(where: { !$0.ok }) {
                print("client_v5.py log (\(transport)):\n\(log)")
            }
        }
    }

    /// The same scenarios with each WebSocket connection's handlers on its event loop.
    @Test("every scenario passes with handlers on the event loop", arguments: ["websocket", "upgrade"])
    func scenariosOnTheEventLoop(transport: String) async throws {
        try await DemoServer.with({
            $0.pingInterval = .seconds(1)
            $0.pingTimeout = .seconds(5)
            $0.handlersOnEventLoop = true
        }) { demo in
            guard let (results, log) = try await PythonClient.run(url: demo.url, transport: transport) else { return }
            #expect(results.map(\.scenario) == PythonClient.scenarios, "client log:\n\(log)")
            for result in results {
                #expect(result.ok, "\(result.scenario) over \(transport): \(result.detail)")
            }
        }
    }
}
