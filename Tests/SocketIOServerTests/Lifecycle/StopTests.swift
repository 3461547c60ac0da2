import Foundation
import SocketIOProtocol
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `stop()` returns promptly whatever the connections are doing, and a connection must send a
/// complete request head within ``SocketIOServer/Configuration/requestHeadTimeout``.
///
/// The `stop()` deadlines catch a hang (it used to wait forever), not slowness: they are long
/// enough for the whole suite running in parallel on two cores.
@Suite struct StopTests {
    /// A connection that sends nothing keeps Hummingbird's child channel waiting for its upgrade
    /// negotiation, which cancelling the server's task cannot reach: `stop()` hung on it
    /// (`sio demo` 1 run in 25, after an HTTP client pooled a connection for a cancelled GET).
    @Test func stopReturnsWhileAConnectionHasSentNothing() async throws {
        let server = SocketIOServer()
        let running = try await server.start()
        let idle = try RawConnection.connect(port: running.port)
        defer { idle.close() }
        // A request on another connection proves the server accepted (and set up) the first.
        let busy = try RawConnection.connect(port: running.port)
        defer { busy.close() }
        try busy.write("GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try await withTimeout(10, "the handshake on another connection") {
            try await busy.read { bytes in bytes.count > 12 ? ((), bytes.count) : nil }
        }
        try await withTimeout(30, "stop() with an idle connection open") { await running.stop() }
        try await withTimeout(30, "the idle connection closing") { try await idle.waitForClose() }
    }

    @Test func stopReturnsWhileAConnectionHasSentHalfAHead() async throws {
        let server = SocketIOServer()
        let running = try await server.start()
        let partial = try RawConnection.connect(port: running.port)
        defer { partial.close() }
        try partial.write("GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n")
        try await withTimeout(30, "stop() with half a head received") { await running.stop() }
        try await withTimeout(30, "the connection closing") { try await partial.waitForClose() }
    }

    /// Bytes that are not HTTP, or nothing at all: closed once the head deadline passes, while
    /// other clients are served.
    @Test func aConnectionWithoutACompleteHeadIsClosedAfterTheDeadline() async throws {
        // Long enough that a loaded machine reads the normal client's head (sent in one write
        // right after its connect) before its own deadline: the bound applies to it too.
        let server = SocketIOServer(configuration: .init(requestHeadTimeout: .seconds(2)))
        let running = try await server.start()
        defer { Task { await running.stop() } }
        let garbage = try RawConnection.connect(port: running.port)
        defer { garbage.close() }
        try garbage.write([0x16, 0x03, 0x01, 0x00, 0xff, 0x01])  // a TLS hello's first bytes
        let silent = try RawConnection.connect(port: running.port)
        defer { silent.close() }

        let client = try RawConnection.connect(port: running.port)
        defer { client.close() }
        try client.write("GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n\r\n")
        let status = try await withTimeout(10, "a normal client's handshake") { try await client.statusLine() }
        #expect(status == "HTTP/1.1 200 OK")
        try await withTimeout(30, "the non-HTTP connection closing") { try await garbage.waitForClose() }
        try await withTimeout(30, "the silent connection closing") { try await silent.waitForClose() }
    }
}

/// A request whose body stalls is bounded like a head that stalls.
@Suite struct StalledRequestTests {
    /// The head comes, the body never does: the connection is closed once it has been idle for
    /// the connection idle timeout (here the 1 s head deadline), while other clients are served.
    @Test func aPostWhoseBodyNeverComesIsClosedWhileOthersAreServed() async throws {
        let server = SocketIOServer(configuration: .init(
            pingInterval: .milliseconds(300), pingTimeout: .milliseconds(300), requestHeadTimeout: .seconds(1)
        ))
        let running = try await server.start()
        defer { Task { await running.stop() } }
        let handshake = try await HTTPClient.get(port: running.port, "/socket.io/?EIO=4&transport=polling")
        let sid = try #require(try JSONValue(parsing: String(handshake.text.dropFirst()))["sid"]?.stringValue)

        let stalled = try RawConnection.connect(port: running.port)
        defer { stalled.close() }
        try stalled.write("POST /socket.io/?EIO=4&transport=polling&sid=\(sid) HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n4hel")
        let other = try await HTTPClient.get(port: running.port, "/socket.io/?EIO=4&transport=polling")
        #expect(other.status == 200, "served meanwhile")
        try await withTimeout(30, "the stalled POST's connection closing") { try await stalled.waitForClose() }
    }
}
