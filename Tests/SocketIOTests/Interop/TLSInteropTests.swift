import Foundation
import SocketIO
import SwitchboardTestSupport
import Testing

/// `https`/`wss` against a server with a self-signed certificate made by the test: it connects
/// with the certificate as a custom trust root and is refused with the system's trust store.
@Suite("TLS")
struct TLSInteropTests {
    @Test(arguments: [InteropTarget.Mode.upgrade, .websocket])
    func connectsWithACustomTrustRootAndRefusesWithout(_ mode: InteropTarget.Mode) async throws {
        let certificate = try await TestCertificate()
        defer { certificate.remove() }
        let cert = certificate.certificatePath
        guard let server = try await PythonPeer.start(.v5, arguments: certificate.serverArguments) else { return }
        defer { Task.detached { await server.stopped() } }
        let url = URL(string: "https://localhost:\(server.port)")!
        let target = InteropTarget(peer: .v5, mode: mode)

        var trusted = target.configuration()
        trusted.trustRoots = .pemFile(cert)
        let manager = try Manager(url: url, configuration: trusted)
        let socket = manager.socket()
        try await target.connect(manager, socket)
        let reply = try await socket.emitWithAck("ack", "over TLS")
        #expect(reply == ["over TLS"])
        await manager.close()

        var oneAttempt = target.configuration()
        oneAttempt.reconnection = false  // otherwise `connect()` keeps waiting across attempts
        let untrusting = try Manager(url: url, configuration: oneAttempt)
        let refused = untrusting.socket()
        await #expect {
            try await withTimeout(15, "untrusted connect") { try await refused.connect() }
        } throws: { error in
            guard case SocketIOError.connectionFailed = error else { return false }
            return true
        }
        await untrusting.close()
    }
}
