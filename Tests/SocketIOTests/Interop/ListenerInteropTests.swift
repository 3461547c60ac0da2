import Dispatch
import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SwitchboardTestSupport
import Testing

/// Listener, executor and status behaviour, observed against a real server.
@Suite("Listeners, executor and status")
struct ListenerInteropTests {
    let target = InteropTarget.all[0]

    @Test func catchAllRunsBeforeNamedListenersAndOnceFiresOnce() async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let order = NIOLockedValueBox<[String]>([])
        socket.onAny { event in order.withLockedValue { $0.append("any:\(event.name)") } }
        socket.on("echo") { _ in order.withLockedValue { $0.append("on:echo") } }
        socket.once("echo") { _ in order.withLockedValue { $0.append("once:echo") } }
        let removed = socket.on("echo") { _ in order.withLockedValue { $0.append("removed") } }
        socket.off(removed)
        let echoes = socket.events(named: "echo")
        try await withTimeout(10, "connect") { try await socket.connect() }
        try socket.emit("echo", 1)
        try socket.emit("echo", 2)
        _ = try await echoes.first(2)
        // The async sequence is itself a listener; wait until the executor ran everything queued.
        try await drain(manager)
        let seen = order.withLockedValue { $0 }.filter { $0 != "any:welcome" }
        #expect(seen == ["any:echo", "on:echo", "once:echo", "any:echo", "on:echo"])
        socket.offAny()
        await manager.close()
    }

    @Test func handlersRunOnTheConfiguredExecutor() async throws {
        guard let server = try await target.server() else { return }
        let queue = DispatchQueue(label: "test.handlers")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")
        let (manager, socket) = try target.manager(for: server) { $0.handlerExecutor = .queue(queue) }
        let onQueue = NIOLockedValueBox<[String?]>([])
        socket.on("echo") { _ in onQueue.withLockedValue { $0.append(DispatchQueue.getSpecific(key: key)) } }
        let echoes = socket.events(named: "echo")
        try await withTimeout(10, "connect") { try await socket.connect() }
        try socket.emit("echo", "x")
        _ = try await echoes.first(1)
        try await withTimeout(5, "queue drain") { await withCheckedContinuation { c in queue.async { c.resume() } } }
        #expect(onQueue.withLockedValue { $0 } == ["mine"])
        await manager.close()
    }

    @Test func emitsBeforeConnectAreBufferedAndSentInOrderAfterTheConnectReply() async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let outgoing = NIOLockedValueBox<[JSONValue]>([])
        socket.onAnyOutgoing { event in outgoing.withLockedValue { $0.append(event.items.first ?? .null) } }
        let echoes = socket.events(named: "echo")
        for i in 0..<5 { try socket.emit("echo", .number(Double(i))) }
        #expect(outgoing.withLockedValue { $0 }.isEmpty, "buffered emits are not outgoing yet")
        try await withTimeout(10, "connect") { try await socket.connect() }
        let echoed = try await echoes.first(5)
        #expect(echoed.map { $0.items.first } == (0..<5).map { JSONValue.number(Double($0)) })
        try await drain(manager)
        #expect(outgoing.withLockedValue { $0 } == (0..<5).map { .number(Double($0)) })
        await manager.close()
    }

    @Test func statusChangesAreObservableInOrder() async throws {
        guard let server = try await target.server() else { return }
        let (manager, socket) = try target.manager(for: server)
        let changes = socket.statusChanges
        try await withTimeout(10, "connect") { try await socket.connect() }
        let id = try #require(socket.id)
        socket.disconnect()
        let seen = try await changes.first(4)
        #expect(seen == [.notConnected, .connecting, .connected(id: id), .disconnected(.ioClientDisconnect)])
        #expect(socket.id == nil)
        await manager.close()
    }

    @Test func reservedNamesCannotBeEmitted() async throws {
        let manager = try Manager(url: URL(string: "http://127.0.0.1:9")!)
        let socket = manager.socket()
        for name in ["connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener"] {
            #expect(throws: SocketIOError.reservedEventName(name)) { try socket.emit(name) }
        }
    }

    @Test func aRefusedConnectionIsATypedErrorNotAHang() async throws {
        // Port 9 (discard) is closed on loopback: the connection is refused at once.
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(5)
        // One attempt: with reconnection on, `connect()` waits across attempts (see ReconnectionTests).
        configuration.reconnection = false
        let manager = try Manager(url: URL(string: "http://127.0.0.1:9")!, configuration: configuration)
        let socket = manager.socket()
        await #expect {
            try await withTimeout(10, "refused connect") { try await socket.connect() }
        } throws: { error in
            guard case SocketIOError.connectionFailed = error else { return false }
            return true
        }
    }

    @Test func invalidURLsAreRefusedUpFront() {
        #expect(throws: SocketIOError.invalidURL("ftp://example.com")) {
            _ = try Manager(url: URL(string: "ftp://example.com")!)
        }
    }

    /// Waits until the manager's handler executor has run everything queued so far.
    private func drain(_ manager: Manager) async throws {
        try await withTimeout(5, "executor drain") {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                manager.runOnHandlerExecutor { continuation.resume() }
            }
        }
    }
}
