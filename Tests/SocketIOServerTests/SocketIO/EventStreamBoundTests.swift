import Foundation
import NIOConcurrencyHelpers
import SocketIOProtocol
@testable import SocketIOServer
import SwitchboardTestSupport
import Testing

/// An `events(named:)` stream nobody iterates holds at most its limit; past it the client's
/// connection is closed (it grew without bound: a client could fill the server's memory).
@Suite(.timeLimit(.minutes(1)))
struct EventStreamBoundTests {
    @Test func aStreamThatFallsBehindClosesTheConnection() async throws {
        let streams = NIOLockedValueBox<[AsyncStream<ServerEvent>]>([])
        try await DemoServer.with(setup: { server in
            server.namespace("/flood").onConnection { socket in
                let stream = socket.events(named: "n", bufferingUpTo: 10)
                streams.withLockedValue { $0.append(stream) }  // kept, never iterated
            }
        }) { demo in
            let client = try await EngineWebSocket.open(port: demo.port)
            _ = try await client.connect("/flood")
            for n in 0..<11 { try client.send(#"42/flood,["n",\#(n)]"#) }
            try await client.socket.waitForClose()
        }
    }
}
