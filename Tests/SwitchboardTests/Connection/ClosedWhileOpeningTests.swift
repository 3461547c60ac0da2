import Foundation
import Logging
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing
@testable import Switchboard

/// A transport that closes before its open returned (the server accepts, then drops it at once)
/// leaves the connection `disconnected`, where the keeper reconnects it. Before, the close was
/// dropped as coming from no current connection, and the open then made the state `connected`
/// over a dead transport for good: sends waited, requests timed out, and no rule applied.
@Suite(.timeLimit(.minutes(1)))
struct ClosedWhileOpeningTests {
    /// A driver whose transport reports its close during the open, then lets the open return.
    final class ClosingDuringOpenDriver: ConnectionDriver {
        func open(onEvent: @escaping @Sendable (DriverEvent) -> Void) async throws {
            onEvent(.closed(reason: "dropped by the server"))
        }
        func close() async {}
        func send(_ event: String, _ payload: JSONValue) async throws { throw DriverError.notConnected }
        func request(_ event: String, _ payload: JSONValue, timeout: Duration) async throws -> Response {
            throw DriverError.notConnected
        }
    }

    @Test func aCloseDuringTheOpenFailsTheOpen() async throws {
        let connection = DriverConnection(
            configuration: ConnectionConfiguration(url: testURL), driver: ClosingDuringOpenDriver()
        )
        await #expect(throws: ConnectionError.connectFailed("the transport closed as it opened (dropped by the server)")) {
            try await connection.connect()
        }
        #expect(connection.state == .disconnected)
        #expect(connection.lastError?.contains("dropped by the server") == true)
    }

    /// The same from outside: a Socket.IO server that disconnects every socket as it connects.
    /// However the close and the open's return interleave, the connection ends `disconnected`.
    @Test func aSocketDroppedAsItConnectsEndsDisconnected() async throws {
        let silent = Logger(label: "test.server") { _ in SwiftLogNoOpLogHandler() }
        var serverConfiguration = SocketIOServer.Configuration()
        serverConfiguration.recovery = .enabled(maxDisconnectionDuration: .seconds(120))
        let server = SocketIOServer(configuration: serverConfiguration, logger: silent)
        server.namespace("/").onConnection { socket in socket.disconnect(close: true) }
        let running = try await server.start(host: "127.0.0.1", port: 0)
        var configuration = ConnectionConfiguration(url: running.url)
        configuration.transport = .webSocketOnly
        let connection = try DriverConnectionFactory.socketIO.makeConnection(for: configuration)
        let states = connection.stateChanges()
        try? await connection.connect()
        let settled = try await states.firstMatch(within: 10, "the connection seeing its transport gone") {
            $0 == .disconnected
        }
        #expect(settled == .disconnected)
        try? await connection.release()
        await running.stop()
    }
}
