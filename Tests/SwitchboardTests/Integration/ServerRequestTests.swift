import Foundation
import Logging
import SocketIOProtocol
import SocketIOServer
import SwitchboardDemo
import Switchboard
import SwitchboardTestSupport
import Testing

/// A server event that asks for an answer reaches feature code through `Connection`, which
/// answers it once; a second answer or one after the connection dropped is a typed error.
@Suite struct ServerRequestTests {
    static let silent = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func withDemoConnection(_ body: (any Connection) async throws -> Void) async throws {
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: silent)
        DemoApplication.install(on: server, logger: silent).cancel()
        let running = try await server.start()
        var configuration = ConnectionConfiguration(url: running.url)
        configuration.transport = .webSocketOnly
        let connection = try DriverConnectionFactory.socketIO.makeConnection(for: configuration)
        do {
            try await withTimeout(20, "connect") { try await connection.connect() }
            try await body(connection)
        } catch {
            try? await connection.disconnect()
            try? await connection.release()
            await running.stop()
            throw error
        }
        try? await connection.disconnect()  // already disconnected in some tests
        try await connection.release()
        await running.stop()
    }

    @Test func aServerAckIsAnsweredThroughTheConnectionOnce() async throws {
        try await Self.withDemoConnection { connection in
            let requests = connection.requests(named: "server-ack")
            let plain = connection.events(named: "server-ack")
            let results = connection.events(named: "server-ack-result")
            // `server-ack`: the demo server asks the sender for an ack of `server-ack` with the
            // same items, then emits `server-ack-result` with what the client answered.
            try await connection.send("server-ack", "question")
            let request = try #require(try await requests.first(1, within: 20, "the server's request").first)
            #expect(request.event == "server-ack")
            #expect(request.payload == "question")
            try request.reply("answer", ["n": 1])
            #expect(try await results.first(1, within: 20, "the server's result") == [["answer", ["n": 1]]])
            #expect(throws: ConnectionError.alreadyReplied(event: "server-ack")) { try request.reply("again") }
            #expect(try await plain.first(1, within: 5, "the same event as a plain event") == ["question"])
        }
    }

    @Test func anAnswerAfterTheConnectionDroppedIsTooLate() async throws {
        try await Self.withDemoConnection { connection in
            let requests = connection.requests(named: "server-ack")
            try await connection.send("server-ack", "question")
            let request = try #require(try await requests.first(1, within: 20, "the server's request").first)
            try await connection.disconnect()
            #expect(throws: ConnectionError.replyTooLate(event: "server-ack")) { try request.reply("late") }
        }
    }
}
