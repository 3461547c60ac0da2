import Foundation
import Harness
@testable import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// ``LiveStatus`` following a ``Socket`` and its manager against the embedded server, with a
/// proxy that cuts and refuses: what a SwiftUI view would show.
@Suite("Live status of a socket")
@MainActor
struct SocketLiveStatusTests {
    @Test func followsConnectLossReconnectionAttemptsAndClose() async throws {
        let harness = try await EmbeddedHarness.start()
        let proxy = try await FaultProxy.start(upstreamPort: harness.port)
        let manager = try Manager(url: URL(string: proxy.url)!, configuration: .quickReconnect())
        let socket = manager.socket()
        let status = LiveStatus(following: socket)
        #expect(status.state == .notConnected)
        #expect(status.transport == nil)
        #expect(status.recovered == nil)

        try await withTimeout(10, "connect") { try await socket.connect() }
        try await waitUntil("connected") { status.state == socket.status && socket.connected }
        #expect(status.transport == "websocket")
        #expect(status.recovered == false, "a first connect starts a new session")
        #expect(status.lastError == nil)

        proxy.refuseNewConnections(true)
        proxy.cutAll()
        try await waitUntil("a failed reconnection attempt") { status.reconnectAttempts >= 2 }
        #expect(!socket.connected)
        #expect(status.lastError != nil)
        #expect(status.transport == nil)

        proxy.refuseNewConnections(false)
        try await waitUntil("connected again") { status.state == socket.status && socket.connected }
        #expect(status.reconnectAttempts == 0, "the count starts over once connected")
        #expect(status.lastError == nil)
        #expect(status.transport == "websocket")

        await manager.close()
        try await waitUntil("closed") { !status.isFollowing }
        #expect(status.state == .disconnected(.ioClientDisconnect))
        await proxy.stop()
        await harness.stop()
    }

    @Test func reportsTheUpgradeFromPolling() async throws {
        let harness = try await EmbeddedHarness.start()
        var configuration = Manager.Configuration.quickReconnect()
        configuration.transports = [.polling, .websocket]
        let manager = try Manager(url: harness.url, configuration: configuration)
        let socket = manager.socket()
        let status = LiveStatus(following: socket)
        try await withTimeout(10, "connect") { try await socket.connect() }
        try await waitUntil("the upgrade") { status.transport == "websocket" }
        await manager.close()
        await harness.stop()
    }

    @Test func doesNotKeepTheManagerAlive() async throws {
        let harness = try await EmbeddedHarness.start()
        weak var weakManager: Manager?
        let status: LiveStatus<SocketStatus>
        do {
            let manager = try Manager(url: harness.url, configuration: .quickReconnect())
            weakManager = manager
            let socket = manager.socket()
            status = LiveStatus(following: socket)
            try await withTimeout(10, "connect") { try await socket.connect() }
            try await waitUntil("connected") { status.state == socket.status && socket.connected }
            await manager.close()
        }
        try await waitUntil("the model stops following") { !status.isFollowing }
        #expect(weakManager == nil, "the model holds neither the socket nor its manager")
        await harness.stop()
    }
}
