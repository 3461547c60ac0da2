import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SwitchboardTestSupport
import Testing

/// The polling → WebSocket upgrade loses, duplicates and reorders nothing while events flow
/// both ways across the switch.
@Suite("Upgrade under traffic")
struct UpgradeInteropTests {
    @Test(arguments: [PythonPeer.Kind.v5, .v3])
    func noEventIsLostOrDuplicatedAcrossTheUpgrade(_ peer: PythonPeer.Kind) async throws {
        guard let server = try await SharedPeers.shared.peer(peer) else { return }
        let target = InteropTarget(peer: peer, mode: .upgrade)
        let (manager, socket) = try target.manager(for: server)
        let events = manager.events
        let echoes = socket.events(named: "echo")
        let burst = socket.events(named: "burst-item")
        // Queue traffic both ways before the namespace connects: it is flushed right after the
        // CONNECT reply, while the WebSocket probe (started when the session opened) is under
        // way, so packets are in flight on polling when it pauses for the switch.
        socket.startConnecting()
        try socket.emit("burst", 300)
        let sent = 300
        for i in 0..<sent { try socket.emit("echo", .number(Double(i))) }

        let upgraded = try await events.firstMatch(within: 15, "upgrade") { $0 == .upgrade }
        #expect(upgraded == .upgrade)
        let echoed = try await echoes.first(sent, within: 30, "echoes")
        let items = try await burst.first(300, within: 30, "burst")
        #expect(echoed.map { $0.items.first?.intValue } == (0..<sent).map { $0 })
        #expect(items.map { $0.items.first?.intValue } == (0..<300).map { $0 })
        #expect(manager.transport == .websocket)

        // Nothing more arrives than was sent: one more round trip, then the count is still exact.
        let reply = try await socket.emitWithAck("ack", "after")
        #expect(reply == ["after"])
        await manager.close()
    }

    @Test func upgradeCanBeTurnedOffAndRemembered() async throws {
        guard let server = try await SharedPeers.shared.peer(.v5) else { return }
        var configuration = Manager.Configuration()
        configuration.upgrade = false
        let stay = try Manager(url: URL(string: server.url)!, configuration: configuration)
        let socket = stay.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        _ = try await socket.emitWithAck("ack", 1)
        #expect(stay.transport == .polling, "upgrade: false stays on polling")
        await stay.close()

        var remembering = Manager.Configuration()
        remembering.rememberUpgrade = true
        let manager = try Manager(url: URL(string: server.url)!, configuration: remembering)
        let events = manager.events
        let first = manager.socket()
        try await withTimeout(10, "connect") { try await first.connect() }
        if manager.transport != .websocket {
            _ = try await events.firstMatch(within: 10, "upgrade") { $0 == .upgrade }
        }
        first.disconnect()
        try await withTimeout(10, "reconnect") { try await first.connect() }
        #expect(manager.transport == .websocket, "the next session opens directly on WebSocket")
        await manager.close()
    }
}
