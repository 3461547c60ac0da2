import SwitchboardCore
import Foundation
import Logging
import SocketIOServer
import Switchboard
import SwitchboardDemo

/// The platform layer in the demo: two screens lease one connection, the server goes away and
/// comes back with commands queued meanwhile, and the keeper cleans up when the screens let go.
/// It runs its own embedded server, so it can stop it and start it again on the same port.
struct PlatformScene: Sendable {
    let story: DemoStory

    func play() async throws {
        story.chapter("Platform layer: leases, an outage, the keeper")
        let first = try await Self.startServer(port: 0)
        let port = first.port
        let manager = ConnectionManager(factory: .socketIO(logger: DemoTrace.logger("sio.demo.platform")), scanInterval: .milliseconds(250))
        let configuration = ConnectionConfiguration(url: first.url)

        let (orders, chat) = try await within("two leases") {
            (try await manager.lease(configuration), try await manager.lease(configuration))
        }
        guard orders.connection === chat.connection, let connection = orders.connection as? DriverConnection else {
            throw DemoFailure(description: "the two leases got different connections")
        }
        let echoes = connection.events(named: "echo")
        try await Self.wait(for: .connected, of: connection, "the keeper connecting the leased connection")
        story.step("two screens leased \(first.url.absoluteString): both hold \(connection.id), one connection")
        try await within("the first send") { try await chat.connection.send("echo", "hello from the chat screen") }
        _ = try await within("the first echo") { await echoes.firstElement() }
        story.detail("the keeper opened it because a lease is held; feature code never saw Socket.IO")

        await first.stop()
        try await Self.wait(for: .disconnected, of: connection, "the connection noticing the outage")
        story.step("the server went away: the connection is \(connection.state)")
        let counts = connection.queuedCommandCounts()
        let sendOne = Task { try await orders.connection.send("echo", "order 1 shipped") }
        try await Self.wait(forQueued: 1, counts)
        let request = Task { try await chat.connection.request("echo", "are you there?", timeout: .seconds(30)) }
        try await Self.wait(forQueued: 2, counts)
        let sendThree = Task { try await orders.connection.send("echo", "order 2 shipped") }
        try await Self.wait(forQueued: 3, counts)
        story.step("while offline the screens sent, requested and sent again: \(connection.queuedCommandCount) commands queued")

        let second = try await Self.startServer(port: port)
        try await Self.wait(for: .connected, of: connection, "the keeper reconnecting")
        story.step("the server came back on port \(port): the keeper reconnected, because leases are held")
        let reply = try await within("the queued commands") {
            try await sendOne.value
            let reply = try await request.value
            try await sendThree.value
            return reply
        }
        var delivered: [String] = []
        for _ in 0..<3 {
            guard let echo = try await within("the queued echoes", { await echoes.firstElement() }) else { break }
            delivered.append(echo.stringValue ?? echo.jsonString)
        }
        guard delivered == ["order 1 shipped", "are you there?", "order 2 shipped"] else {
            throw DemoFailure(description: "queued commands arrived as \(delivered)")
        }
        story.step("the queued commands reached the server in order: \(delivered.map { "\"\($0)\"" }.joined(separator: ", "))")
        story.detail("the request got its reply: \(reply.value.jsonString)")

        let events = manager.keeper.events()
        orders.release()
        chat.release()
        _ = try await within("the keeper's cleanup") {
            for await event in events {
                if case .removed(connection.id) = event { return true }
            }
            return false
        }
        story.step("both screens let go: the keeper disconnected \(connection.id), released it; the pool holds \(manager.pool.count)")
        await manager.shutdown()
        await second.stop()
    }

    static func startServer(port: Int) async throws -> RunningServer {
        let silent = Logger.disabled("sio.demo.platform")
        let server = SocketIOServer(configuration: DemoApplication.configuration, logger: silent)
        DemoApplication.install(on: server, logger: silent).cancel()
        return try await server.start(host: "127.0.0.1", port: port)
    }

    static func wait(for state: ConnectionState, of connection: any Connection, _ what: String) async throws {
        let states = connection.stateChanges()
        do {
            _ = try await within(what) {
                for await next in states where next == state { return true }
                return false
            }
        } catch let failure as DemoFailure {
            throw DemoFailure(description: "\(failure.description) (the connection is \(connection.state))")
        }
    }

    static func wait(forQueued count: Int, _ counts: AsyncStream<Int>) async throws {
        _ = try await within("\(count) queued commands") {
            for await next in counts where next >= count { return true }
            return false
        }
    }
}
