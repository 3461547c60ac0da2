import Foundation
import Logging
import SocketIO
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A request through one of our drivers has one deadline, its connection's: the driver keeps
/// none and no task for it, and forgets the request when the connection's deadline ends it.
@Suite("One deadline per request")
struct RequestDeadlineTests {
    enum Kind: String, CaseIterable, CustomStringConvertible, Sendable {
        case socketIO, plainWebSocket
        var description: String { rawValue }
    }

    @Test(arguments: Kind.allCases)
    func theConnectionsDeadlineIsTheOnlyOne(_ kind: Kind) async throws {
        let (received, release) = (Gate(), Gate())
        let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        let server = SocketIOServer(configuration: SocketIOServer.Configuration(), logger: silent)
        // Both hear the request and never answer it.
        server.namespace("/").onConnection { socket in
            _ = socket.on("hold") { _ in received.open() }
        }
        server.onPlainWebSocket { connection in
            let socket = EnvelopeSocket(connection)
            socket.onRequest("hold") { _ in
                received.open()
                await release.wait()
                return []
            }
            try await socket.run()
        }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        defer { release.open() }

        let clock = ManualClock()
        var configuration = ConnectionConfiguration(url: kind == .socketIO ? running.url : running.url.appendingPathComponent("ws"))
        configuration.transport = .webSocketOnly
        let driver: any ConnectionDriver
        // What the driver keeps for requests: how many wait, how many with a deadline.
        let pending: @Sendable () -> (count: Int, deadlines: Int)
        switch kind {
        case .socketIO:
            let socketIO = try SocketIODriver(configuration: configuration)
            (driver, pending) = (socketIO, { socketIO.socket.ackWaits })
        case .plainWebSocket:
            let webSocket = WebSocketDriver(url: configuration.url)
            (driver, pending) = (webSocket, { (webSocket.requests.count, webSocket.requests.deadlineCount) })
        }
        let connection = DriverConnection(configuration: configuration, driver: driver, clock: clock, logger: silent)
        try await withTimeout(10, "connect") { try await connection.connect() }

        let request = Task { try await connection.request("hold", 1, timeout: .seconds(5)) }
        try await withTimeout(10, "the server hears the request") { await received.wait() }
        #expect(pending() == (1, 0), "the driver waits for the reply, with no deadline of its own")
        await clock.waitForSleepers(1)

        clock.advance(by: .seconds(5))
        let error = await failure(of: request)
        #expect(error as? ConnectionError == .timedOut(event: "hold", after: .seconds(5)))
        #expect(pending() == (0, 0), "the driver forgot the request when the connection's deadline passed")
        try await connection.disconnect()
        await running.stop()
    }

    @Test func aFailoverChannelsRequestToo() async throws {
        let (received, release) = (Gate(), Gate())
        // The test clock: the deadline passes when the test says, however loaded the machine.
        let clock = ManualClock()
        let setup = try await PinnedChannel.open(handlers: { channel in
            channel.onRequest("hold") { _ in
                received.open()
                await release.wait()
                return []
            }
        }, clock: clock)
        let requests = setup.driver.requests
        let request = Task { try await setup.connection.request("hold", 1, timeout: .seconds(5)) }
        try await withTimeout(10, "the server hears the request") { await received.wait() }
        #expect((requests.count, requests.deadlineCount) == (1, 0), "the driver waits for the reply, with no deadline of its own")
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        let error = await failure(of: request)
        #expect(error as? ConnectionError == .timedOut(event: "hold", after: .seconds(5)))
        #expect(requests.count == 0, "the driver forgot the request when the connection's deadline passed")
        release.open()
        await setup.stop()
    }
}
