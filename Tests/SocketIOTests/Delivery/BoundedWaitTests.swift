import Foundation
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// Every wait of the client ends: cancelled mid-wait, or its owner closed mid-wait, each returns
/// promptly with a typed error, and every async sequence ends when the manager closes.
@Suite struct BoundedWaitTests {
    static func manager(for url: URL, reconnection: Bool = false) throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        configuration.reconnection = reconnection
        configuration.reconnectionDelay = .seconds(30)
        configuration.reconnectionDelayMax = .seconds(30)
        return try Manager(url: url, configuration: configuration)
    }

    /// A port nothing listens on: every attempt fails, and with reconnection on, connect() waits.
    static func deadURL() throws -> URL {
        URL(string: "http://127.0.0.1:\(TestPorts.outsideEphemeralRange())")!
    }

    @Test func connectWaitingAcrossAttemptsEndsWhenCancelled() async throws {
        let manager = try Self.manager(for: try Self.deadURL(), reconnection: true)
        let socket = manager.socket()
        let waiting = Task { () -> SocketIOError? in
            do throws(SocketIOError) { try await socket.connect(); return nil } catch { return error }
        }
        _ = try await manager.events.firstMatch(within: 10, "the first failed attempt") {
            if case .error = $0 { true } else { false }
        }
        waiting.cancel()
        let error = try await withTimeout(5, "connect() after cancel") { await waiting.value }
        #expect(error == .connectionFailed("cancelled"))
        await manager.close()
    }

    @Test func connectWaitingAcrossAttemptsEndsWhenTheManagerCloses() async throws {
        let manager = try Self.manager(for: try Self.deadURL(), reconnection: true)
        let socket = manager.socket()
        let events = manager.events
        let waiting = Task { () -> SocketIOError? in
            do throws(SocketIOError) { try await socket.connect(); return nil } catch { return error }
        }
        _ = try await events.firstMatch(within: 10, "the first failed attempt") {
            if case .error = $0 { true } else { false }
        }
        try await withTimeout(5, "manager.close()") { await manager.close() }
        let error = try await withTimeout(5, "connect() after close") { await waiting.value }
        #expect(error == .disconnected(.ioClientDisconnect))
    }

    @Test func emitWithAckEndsWhenCancelled() async throws {
        let server = try await NextTickServer.start()  // never acknowledges
        let manager = try Self.manager(for: server.url)
        let socket = manager.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        let waiting = Task { () -> SocketIOError? in
            do throws(SocketIOError) { _ = try await socket.emitWithAck("never", timeout: .seconds(600)); return nil } catch { return error }
        }
        _ = try await server.records.firstMatch(within: 10, "the event reaching the server") {
            if case .dispatched = $0 { true } else { false }
        }
        waiting.cancel()
        let error = try await withTimeout(5, "emitWithAck after cancel") { await waiting.value }
        #expect(error != nil)
        await manager.close()
        await server.stop()
    }

    @Test func emitWithAckEndsWhenTheManagerCloses() async throws {
        let server = try await NextTickServer.start()
        let manager = try Self.manager(for: server.url)
        let socket = manager.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        let waiting = Task { () -> SocketIOError? in
            do throws(SocketIOError) { _ = try await socket.emitWithAck("never", timeout: .seconds(600)); return nil } catch { return error }
        }
        _ = try await server.records.firstMatch(within: 10, "the event reaching the server") {
            if case .dispatched = $0 { true } else { false }
        }
        try await withTimeout(10, "manager.close()") { await manager.close() }
        let error = try await withTimeout(5, "emitWithAck after close") { await waiting.value }
        #expect(error == .disconnected(.ioClientDisconnect))
        await server.stop()
    }

    /// A server that never confirms it read what came before the DISCONNECT: close() still
    /// returns (the fence waits at most 2 s), and the connection is closed.
    @Test func closeReturnsWhenTheServerNeverAnswersPings() async throws {
        let server = try await NextTickServer.start(answersPings: false)
        let manager = try Self.manager(for: server.url)
        let socket = manager.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        try socket.emit("n", 1)
        try await withTimeout(10, "manager.close() with no pong coming") { await manager.close() }
        #expect(!socket.connected)
        await server.stop()
    }

    @Test func everyAsyncSequenceEndsWhenTheManagerCloses() async throws {
        let server = try await NextTickServer.start()
        let manager = try Self.manager(for: server.url)
        let socket = manager.socket()
        let managerEvents = manager.events
        let named = socket.events(named: "anything")
        let all = socket.allEvents()
        let decoded = socket.events(named: "typed", as: Int.self)
        let statuses = socket.statusChanges
        try await withTimeout(10, "connect") { try await socket.connect() }
        await manager.close()
        try await withTimeout(5, "every sequence ending") {
            for await _ in managerEvents {}
            for await _ in named {}
            for await _ in all {}
            for try await _ in decoded {}
            for await _ in statuses {}
        }
        await server.stop()
    }
}
