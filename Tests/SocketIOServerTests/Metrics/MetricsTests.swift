import CoreMetrics
import Foundation
import Harness
import MetricsTestKit
@testable import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// The server's and the client's metrics after a known workload, read from swift-metrics' test
/// backend (made in the test's own scope, so nothing is bootstrapped for the process).
@Suite struct MetricsTests {
    @Test func serverAndClientCountAKnownWorkloadWithALossAndARecovery() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            var configuration = SocketIOServer.Configuration()
            configuration.recovery = .enabled(maxDisconnectionDuration: .seconds(60))
            let server = SocketIOServer(configuration: configuration)
            server.namespace("/").onConnection { socket in
                socket.on("ack") { event in event.ack?.respond(event.items) }
                // An event with a recovery offset: what lets the client ask for its session back.
                socket.on("hello") { _ in socket.emit("hello", "again") }
            }
            let running = try await server.start()
            let proxy = try await FaultProxy.start(upstreamPort: running.port)
            var client = Manager.Configuration()
            client.transports = [.websocket]
            client.reconnectionDelay = .milliseconds(20)
            client.reconnectionDelayMax = .milliseconds(50)
            client.networkMonitor = nil
            let manager = try Manager(url: URL(string: proxy.url)!, configuration: client)
            let socket = manager.socket()
            let events = manager.events
            try await withTimeout(15, "connect") { try await socket.connect() }
            for i in 0..<3 { _ = try await socket.timeout(.seconds(5)).emitWithAck("ack", .number(Double(i))) }
            let hellos = socket.events(named: "hello")
            try socket.emit("hello")
            _ = try await hellos.first(1, within: 15, "the server's event")

            // A loss the client recovers from: the server counts a recovery.
            proxy.cutAll()
            _ = try await events.firstMatch(within: 15, "the reconnection") { if case .reconnect = $0 { true } else { false } }
            try await withTimeout(15, "connected again") { try await socket.connect() }
            #expect(socket.recovered)
            _ = try await socket.timeout(.seconds(5)).emitWithAck("ack", 9)

            let root = [("namespace", "/")]
            #expect(try metrics.expectCounter("socketio_connections_total", root).totalValue == 2)
            #expect(try metrics.expectCounter("socketio_recovery_attempts_total", root).totalValue == 1)
            #expect(try metrics.expectCounter("socketio_recoveries_total", root).totalValue == 1)
            #expect(try metrics.expectCounter("socketio_events_received_total", root).totalValue == 5)
            #expect(try metrics.expectCounter("socketio_acks_answered_total", root).totalValue == 4)
            #expect(try metrics.expectCounter("socketio_events_sent_total", root).totalValue == 1)
            #expect(try metrics.expectMeter("socketio_sockets_connected", root).lastValue == 1)
            #expect(try metrics.expectCounter("socketio_disconnections_total", root + [("reason", "transport close")]).totalValue == 1)
            #expect(try metrics.expectCounter("engineio_sessions_total", [("transport", "websocket")]).totalValue == 2)
            #expect(try metrics.expectCounter("engineio_received_bytes_total", [("transport", "websocket")]).totalValue > 0)
            #expect(try metrics.expectCounter("engineio_sent_bytes_total", [("transport", "websocket")]).totalValue > 0)

            #expect(try metrics.expectCounter("socketio_client_reconnect_attempts_total").totalValue >= 1)
            #expect(try metrics.expectCounter("socketio_client_reconnects_total").totalValue == 1)
            #expect(try metrics.expectMeter("socketio_client_sessions_open").lastValue == 1)
            #expect(try metrics.expectTimer("socketio_client_ack_round_trip_seconds").values.count == 4)

            await manager.close()
            await proxy.stop()
            await running.stop()
            #expect(try metrics.expectMeter("engineio_sessions_open").lastValue == 0, "every session closed")
        }
    }
}
