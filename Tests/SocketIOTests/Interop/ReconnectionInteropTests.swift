import Foundation
import Harness
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// Reconnection, at-least-once emits and the offline buffer against python-socketio's servers
/// (5.x for protocol v5, 4.x for v3), through the fault proxy and across a server restart.
@Suite("Reconnection against python-socketio")
struct ReconnectionInteropTests {
    static func configuration(_ kind: PythonPeer.Kind) -> Manager.Configuration {
        var configuration = Manager.Configuration.quickReconnect()
        configuration.version = kind == .v5 ? .v4 : .v3
        configuration.defaultAckTimeout = .seconds(2)
        return configuration
    }

    @Test(arguments: [PythonPeer.Kind.v5, .v3])
    func ackedEventsSurviveCutsEvery200Milliseconds(_ kind: PythonPeer.Kind) async throws {
        guard let peer = try await PythonPeer.start(kind, arguments: ["--quiet"]) else { return }
        let proxy = try await FaultProxy.start(upstreamPort: peer.port)
        var configuration = Self.configuration(kind)
        configuration.retries = 1_000
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: configuration)
        let socket = manager.socket()
        try await withTimeout(20, "connect") { try await socket.connect() }
        let cutter = proxy.cutRepeatedly(every: .milliseconds(200))
        let total = 1_000
        let replies = try await withTimeout(180, "\(total) acked events") {
            var replies: [Int] = []
            for id in 0..<total {
                let reply = try await socket.emitWithAck("ack", ["id": .number(Double(id))])
                replies.append(reply.first?["id"]?.intValue ?? -1)
            }
            return replies
        }
        cutter.cancel()
        let cuts = await cutter.value
        #expect(replies == Array(0..<total), "every event acknowledged by python-socketio, in order")
        #expect(cuts > 0)
        await manager.close()
        await proxy.stop()
        await peer.stopped()
    }

    @Test(arguments: [PythonPeer.Kind.v5, .v3])
    func bufferedEmitsReachARestartedServer(_ kind: PythonPeer.Kind) async throws {
        // Below the ephemeral range, so no other test's server takes it while this one is down.
        guard let first = try await TestPorts.start({ try await PythonPeer.start(kind, port: $0, arguments: ["--quiet"]) }) else { return }
        let port = first.port
        let manager = try Manager(url: URL(string: first.url)!, configuration: Self.configuration(kind))
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        let statuses = socket.statusChanges
        try await withTimeout(20, "connect") { try await socket.connect() }

        await first.killedAbruptly()
        _ = try await statuses.firstMatch(within: 30, "the client noticing") { status in
            if case .disconnected = status { return true }
            return false
        }
        for value in 0..<300 { try socket.emit("echo", .number(Double(value))) }

        guard let second = try await TestPorts.restart(on: port, { try await PythonPeer.start(kind, port: $0, arguments: ["--quiet"]) }) else { return }
        let back = try await echoes.first(300, within: 60, "the buffered emits echoed by the new server")
        #expect(back.map(\.items) == (0..<300).map { [JSONValue.number(Double($0))] }, "all of them, in order, once")
        await manager.close()
        await second.stopped()
    }
}
