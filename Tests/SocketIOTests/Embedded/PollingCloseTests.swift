import Foundation
import NIOConcurrencyHelpers
import SocketIO
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// Closing over long-polling: the last emits and the close packet reach the server before the
/// held GET ends. A server that ends a session when its held GET's connection closes (socket.io's
/// does, ours too) would otherwise drop them whenever the GET's close came first.
@Suite("Closing over long-polling")
struct PollingCloseTests {
    @Test("emits then close(), 20 rounds: the session ends by the client's close each time, and every emit arrives")
    func emitsThenCloseReachTheServer() async throws {
        let rounds = 20, emits = 10
        let server = SocketIOServer(logger: .disabled("test"))
        let (counts, counted) = AsyncStream<Int>.makeStream()
        let seen = NIOLockedValueBox(0)
        server.namespace("/").onConnection { socket in
            socket.on("n") { _ in counted.yield(seen.withLockedValue { $0 += 1; return $0 }) }
        }
        let (ends, ended) = AsyncStream<String>.makeStream()
        server.onConnectionEvent { event in
            if case .sessionClosed(_, let reason) = event { ended.yield(reason) }
        }
        let running = try await server.start()
        for _ in 1...rounds {
            var configuration = Manager.Configuration()
            configuration.transports = [.polling]
            let manager = try Manager(url: running.url, configuration: configuration)
            let socket = manager.socket()
            try await withTimeout(20, "connect") { try await socket.connect() }
            for number in 0..<emits { try socket.emit("n", .number(Double(number))) }
            await manager.close()
        }
        let reasons = try await ends.first(rounds, within: 60, "the sessions' ends")
        #expect(reasons == Array(repeating: "transport close", count: rounds), "the client's close packet ended every session")
        _ = try await withTimeout(20, "every emit at the server") {
            for await count in counts where count == rounds * emits { return true }
            return false
        }
        await running.stop()
    }
}
