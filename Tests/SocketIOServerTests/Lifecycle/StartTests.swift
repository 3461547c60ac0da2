import SocketIOServer
import SwitchboardTestSupport
import Testing

/// What `start` refuses, typed, before anything listens.
@Suite struct StartTests {
    /// A port out of range used to wrap (`sio serve --port 70000` listened on 4464).
    @Test(arguments: [70_000, 65_536, -1, Int.max])
    func aPortOutOfRangeIsRefused(_ port: Int) async {
        let server = SocketIOServer()
        await #expect(throws: SocketIOServerError.cannotListen("port \(port) is not between 0 and 65535")) {
            _ = try await server.start(port: port)
        }
    }
}
