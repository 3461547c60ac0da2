import SocketIOServer
import Testing

@Test func serverModuleSeesTheProtocol() {
    #expect(EngineIOVersion.v4.socketIOVersion == .v5)
}
