import SocketIOServer
import Switchboard
import SwitchboardTestSupport
import Testing

/// A failover connection's `disconnect()` ends its channel on the server at once (an `end`
/// envelope), as socket.io's `disconnect()` ends a session, and the next `connect()` starts a new
/// channel; `suspend()` closes the transport as a loss does, so the server keeps the channel and
/// the next `connect()` recovers it. (Before, every close left the channel on the server for its
/// two minutes of expiry: clients coming and going filled the server's table.)
@Suite struct ChannelEndTests {
    /// Waits until the server holds `count` channels.
    static func serverHolds(_ count: Int, _ channels: ReliableChannels, _ what: String) async throws {
        try await withTimeout(10, what) {
            while channels.count != count { await Task.yield() }
        }
    }

    @Test func disconnectEndsTheChannelAndSuspendKeepsIt() async throws {
        let setup = try await PinnedChannel.open()
        let first = setup.driver.channelID
        #expect(setup.channels.channel(first) != nil)

        try await setup.connection.suspend()
        try await withTimeout(20, "connect after suspend") { try await setup.connection.connect() }
        #expect(setup.connection.recovered == true, "the server kept the suspended channel")
        #expect(setup.driver.channelID == first)
        #expect(setup.channels.count == 1)

        try await setup.connection.disconnect()
        try await Self.serverHolds(0, setup.channels, "the server forgetting the ended channel")
        try await withTimeout(20, "connect after disconnect") { try await setup.connection.connect() }
        #expect(setup.connection.recovered == false, "a new channel")
        #expect(setup.driver.channelID != first)
        #expect(setup.channels.channel(setup.driver.channelID) != nil)
        #expect(setup.channels.count == 1)
        await setup.stop()
    }
}
