import Foundation
import SocketIO
import SocketIOProtocol
import SwitchboardTestSupport
import Testing

/// Nothing emitted is lost through the way a client closes: socket.io's Node server dispatches
/// events a tick after reading them and drops those whose socket disconnected in the same read,
/// so the namespace DISCONNECT must reach it in a later read than the events before it.
@Suite struct CloseDeliveryTests {
    static func manager(for server: NextTickServer) throws -> Manager {
        var configuration = Manager.Configuration()
        configuration.transports = [.websocket]
        configuration.reconnection = false
        return try Manager(url: server.url, configuration: configuration)
    }

    /// The server's records up to the namespace DISCONNECT.
    static func recordsUntilDisconnect(_ server: NextTickServer) async throws -> [NextTickServer.Record] {
        try await withTimeout(15, "the DISCONNECT reaching the server") {
            var seen: [NextTickServer.Record] = []
            for await record in server.records {
                seen.append(record)
                if case .disconnected = record { break }
            }
            return seen
        }
    }

    static func expectAllDispatched(_ records: [NextTickServer.Record], count: Int) {
        let dropped = records.filter { if case .dropped = $0 { true } else { false } }
        let dispatched = records.compactMap { record -> String? in
            if case .dispatched(let packet) = record { return packet }
            return nil
        }
        #expect(dropped.isEmpty, "the server dropped \(dropped.count) events read with the DISCONNECT")
        #expect(dispatched == (0..<count).map { #"2["n",\#($0)]"# })
        #expect(records.last == .disconnected("1"))
    }

    @Test func eventsEmittedRightBeforeDisconnectAreDispatched() async throws {
        let server = try await NextTickServer.start()
        let manager = try Self.manager(for: server)
        let socket = manager.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        for number in 0..<20 { try socket.emit("n", .number(Double(number))) }
        socket.disconnect()
        let records = try await Self.recordsUntilDisconnect(server)
        Self.expectAllDispatched(records, count: 20)
        await manager.close()
        await server.stop()
    }

    @Test func eventsEmittedRightBeforeManagerCloseAreDispatched() async throws {
        let server = try await NextTickServer.start()
        let manager = try Self.manager(for: server)
        let socket = manager.socket()
        try await withTimeout(10, "connect") { try await socket.connect() }
        for number in 0..<20 { try socket.emit("n", .number(Double(number))) }
        try await withTimeout(10, "manager.close()") { await manager.close() }
        let records = try await Self.recordsUntilDisconnect(server)
        Self.expectAllDispatched(records, count: 20)
        await server.stop()
    }

    /// The other namespace of the same session goes on: a fence holds only what comes after it.
    @Test func disconnectingOneNamespaceKeepsTheOtherWorking() async throws {
        let server = try await NextTickServer.start()
        let manager = try Self.manager(for: server)
        let root = manager.socket()
        let chat = manager.socket(namespace: "/chat")
        try await withTimeout(10, "connect") {
            try await root.connect()
            try await chat.connect()
        }
        try chat.emit("n", 0)
        chat.disconnect()
        try root.emit("n", 1)
        let records = try await withTimeout(15, "both events and the DISCONNECT") {
            var seen: [NextTickServer.Record] = []
            for await record in server.records {
                seen.append(record)
                if seen.count == 3 { break }
            }
            return seen
        }
        #expect(records.contains(.dispatched(#"2/chat,["n",0]"#)))
        #expect(records.contains(.dispatched(#"2["n",1]"#)))
        #expect(records.contains(.disconnected("1/chat,")))
        #expect(!records.contains { if case .dropped = $0 { true } else { false } })
        await manager.close()
        await server.stop()
    }
}
