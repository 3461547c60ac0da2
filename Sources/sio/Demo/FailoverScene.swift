import Foundation
import Harness
import NIOConcurrencyHelpers
import SocketIOProtocol
import SocketIOServer
import Switchboard

/// Failover in the demo: a channel over plain WebSocket loses its WebSocket path (a fault proxy
/// stands in for a network that stalls it, then refuses it), moves to Socket.IO without losing or
/// doubling a message, and comes back once the path has been good for a while.
struct FailoverScene: Sendable {
    let story: DemoStory

    func play() async throws {
        story.chapter("Failover: one channel over WebSocket and Socket.IO")
        let server = try await PlatformScene.startServer(port: 0)
        // The WebSocket path goes through the proxy, the Socket.IO path straight to the server.
        let proxy = try await FaultProxy.start(upstreamPort: server.port)
        let driver = NIOLockedValueBox<FailoverDriver?>(nil)
        let factory = DriverConnectionFactory { configuration in
            var options = FailoverDriver.Options(
                webSocketURL: URL(string: "ws://127.0.0.1:\(proxy.port)/ws")!,
                socketIOURL: configuration.url
            )
            options.networkMonitor = nil
            options.maxAttempts = 100
            options.tickInterval = .milliseconds(100)
            options.ackTimeout = .seconds(1)
            var policy = DefaultFailoverPolicy()
            policy.goodPeriod = .seconds(2)  // the default is a minute: the demo is shorter
            let made = FailoverDriver(options: options, policy: policy)
            driver.withLockedValue { $0 = made }
            return made
        }
        let manager = ConnectionManager(factory: factory, scanInterval: .milliseconds(250))
        let lease = try await within("the lease") { try await manager.lease(ConnectionConfiguration(url: server.url)) }
        let connection = lease.connection
        let echoes = connection.events(named: "echo")
        try await PlatformScene.wait(for: .connected, of: connection, "the channel opening")
        guard let channel = driver.withLockedValue({ $0 }) else { throw DemoFailure(description: "no failover driver was made") }
        let changes = channel.events()
        story.step("a channel \(channel.channelID.prefix(8))… opened over \(channel.transport.map { "\($0)" } ?? "?")")

        proxy.stallAll()
        proxy.refuseNewConnections(true)
        try await send(1...50, on: connection)
        let away = try await nextChange(changes, to: .socketIO)
        story.step("the WebSocket path stalled (open, nothing moving), then refused new connections: moved to Socket.IO — \(away)")
        story.detail("the stall showed as a missed acknowledgement deadline, the refusal as a failed connect")
        try await send(51...100, on: connection)
        try await expectEchoes(1...100, from: echoes)
        story.step("100 messages sent during the outage and after the switch came back once each, in order")

        proxy.refuseNewConnections(false)
        let back = try await nextChange(changes, to: .webSocket)
        story.step("the path came back: the channel returned to WebSocket — \(back)")
        try await send(101...150, on: connection)
        try await expectEchoes(101...150, from: echoes)
        story.step("50 more, once each and in order, on the way back")
        story.detail("each message is numbered and kept until acknowledged; a switch resumes from what the other side has")

        lease.release()
        await manager.shutdown()
        await proxy.stop()
        await server.stop()
    }

    /// Sends `numbers`; a send that waits (the connection is not connected: queued) counts
    /// against the step's deadline like any other wait.
    private func send(_ numbers: ClosedRange<Int>, on connection: any Connection) async throws {
        try await within("sending \(numbers)") {
            for number in numbers {
                try await connection.send("echo", .number(Double(number)))
            }
        }
    }

    private func nextChange(_ changes: AsyncStream<FailoverEvent>, to target: FailoverTransport) async throws -> String {
        let reason = try await within("the channel moving to \(target)") { () -> String? in
            for await change in changes {
                if case .transportChanged(_, target, let reason) = change { return reason }
            }
            return nil
        }
        guard let reason else { throw DemoFailure(description: "the channel never moved to \(target)") }
        return reason
    }

    private func expectEchoes(_ numbers: ClosedRange<Int>, from echoes: AsyncStream<JSONValue>) async throws {
        let got = try await within("the echoes \(numbers)") { () -> [Int] in
            var got: [Int] = []
            for await echo in echoes {
                got.append(echo.intValue ?? -1)
                if got.count == numbers.count { break }
            }
            return got
        }
        guard got == Array(numbers) else {
            throw DemoFailure(description: "echoes arrived as \(got.prefix(20))… instead of \(numbers)")
        }
    }
}
