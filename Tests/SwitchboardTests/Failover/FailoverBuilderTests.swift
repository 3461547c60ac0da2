import Foundation
import SocketIOProtocol
import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// The failover connection through the builder, as feature code sets one up.
@Suite struct FailoverBuilderTests {
    @Test func theBuilderConnectsAFailoverChannelThatAnswers() async throws {
        let server = SocketIOServer(logger: PinnedChannel.silent)
        let channels = ReliableChannels(server: server)
        channels.onChannel { channel in channel.onRequest("echo") { data in [data] } }
        server.onPlainWebSocket { connection in try await channels.serve(connection) }
        let running = try await server.start()

        let connection = try await ConnectionBuilder()
            .url(URL(string: "http://127.0.0.1:\(running.port)")!)
            .connectTimeout(.seconds(10))
            .connect(using: .failover { $0.networkMonitor = nil })
        let reply = try await connection.request("echo", "built", timeout: .seconds(10))
        #expect(reply.value == "built")
        #expect(connection.state == .connected)
        try await connection.disconnect()
        try await connection.release()
        await running.stop()
    }
}
