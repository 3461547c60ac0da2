import Foundation
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// A first request NIO's decoder cannot read is answered and its connection closed at once.
/// Before, the upgrade negotiation waited for a request that never came: no answer, and the
/// connection stayed open for good (the head deadline had ended with the head's blank line),
/// a descriptor each. The head deadline here is ten minutes, so only the answer can close them.
@Suite struct MalformedFirstRequestTests {
    @Test(arguments: [
        ("a header line without a colon", "GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("a method with a parenthesis", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("HTTP/9.9", "GET / HTTP/9.9\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("a control character in a value", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{01}b\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("a 90 kB URL", "GET /socket.io/?EIO=4&transport=polling&x=\(String(repeating: "a", count: 90_000)) HTTP/1.1\r\nHost: x\r\n\r\n",
         "HTTP/1.1 431 Request Header Fields Too Large"),
        ("a 90 kB header", "GET /ws HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "a", count: 90_000))\r\n\r\n",
         "HTTP/1.1 431 Request Header Fields Too Large"),
    ])
    func isAnsweredAndClosed(_ what: String, _ request: String, _ expected: String) async throws {
        let server = SocketIOServer(configuration: .init(requestHeadTimeout: .seconds(600)))
        let running = try await server.start()
        defer { Task { await running.stop() } }
        let connection = try RawConnection.connect(port: running.port)
        defer { connection.close() }
        try connection.write(request)
        let status = try await withTimeout(30, "the answer to \(what)") { try await connection.statusLine() }
        #expect(status == expected, "\(what)")
        try await withTimeout(30, "the connection closing after \(what)") { try await connection.waitForClose() }

        // The server goes on serving.
        let client = try RawConnection.connect(port: running.port)
        defer { client.close() }
        try client.write("GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\n\r\n")
        let handshake = try await withTimeout(30, "a handshake after \(what)") { try await client.statusLine() }
        #expect(handshake == "HTTP/1.1 200 OK")
    }
}
