import Foundation
import NIOConcurrencyHelpers
import SocketIO

extension DemoScenes {
    /// The server goes away and comes back: the client reconnects with backoff, and what the app
    /// emitted meanwhile is delivered, in order.
    func reconnection() async throws {
        story.chapter("Reconnection and the offline buffer")
        var configuration = Manager.Configuration()
        configuration.connectTimeout = .seconds(demoStepSeconds)
        configuration.defaultAckTimeout = .seconds(demoStepSeconds)
        configuration.transports = [.websocket]
        configuration.reconnectionDelay = .milliseconds(200)
        configuration.reconnectionDelayMax = .seconds(1)
        let manager = try Manager(url: url, configuration: configuration)
        let socket = manager.socket()
        let echoes = socket.events(named: "echo")
        let statuses = socket.statusChanges
        let attempts = NIOLockedValueBox<[Int]>([])
        let managerEvents = manager.events
        let failures = manager.events
        let watcher = Task {
            for await event in managerEvents {
                switch event {
                case .reconnectAttempt(let attempt): attempts.withLockedValue { $0.append(attempt) }
                case .reconnect(let attempt): return attempt
                case .open, .ping, .upgrade, .close, .error, .reconnectError, .reconnectFailed: continue
                }
            }
            return 0
        }
        try await within("the connection") { try await socket.connect() }
        story.step("connected to / (socket id \(socket.id ?? "?"))")

        guard let port = host.port else { throw DemoFailure(description: "the server has no port") }
        await host.stop()
        let reason = try await within("the client noticing") { () -> DisconnectReason? in
            for await status in statuses {
                if case .disconnected(let reason) = status { return reason }
            }
            return nil
        }
        story.step("the server went away: disconnect \"\(reason.map(\.description) ?? "?")\"; the client keeps trying with backoff")

        let messages = ["written", "while", "offline"]
        for message in messages { try socket.emit("echo", .string(message)) }
        let pendingAck = Task { try await socket.emitWithAck("ack", "acknowledged after the outage") }
        story.step("emitted \(messages.count) events and one acked event while offline: buffered, in order")

        // Two attempts fail while the server is down, then it comes back.
        _ = try await within("two failed attempts") {
            var failed = 0
            for await event in failures {
                if case .reconnectError = event { failed += 1 }
                if failed == 2 { return true }
            }
            return false
        }
        try await host.start(port: port)
        story.step("the server is back on port \(port)")
        let attempt = try await within("the reconnection") { await watcher.value }
        let tries = attempts.withLockedValue { $0 }
        story.step("reconnected on attempt \(attempt) (reconnect_attempt events: \(tries.map(String.init).joined(separator: ", ")))")
        var delivered: [String] = []
        for _ in messages {
            let echo = try await within("the buffered echoes") { await echoes.firstElement() }
            delivered.append(echo?.items.first?.stringValue ?? "?")
        }
        guard delivered == messages else {
            throw DemoFailure(description: "the buffered emits came back as \(delivered), expected \(messages)")
        }
        let reply = try await within("the buffered ack") { try await pendingAck.value }
        story.step("the buffered events arrived in order (\(delivered.joined(separator: " → "))) and the ack came back: \(reply.first?.stringValue ?? "?")")
        await manager.close()
    }
}
