import Foundation
import SocketIOProtocol
import SwitchboardTestSupport

/// One HTTP response, as read off the wire.
struct HTTPReply: Sendable, CustomStringConvertible {
    var status: Int
    /// Header names in lower case.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var description: String { "\(status) \(headers) \(text)" }

    /// The Engine.IO packets of a polling body.
    var packets: [String] { text.split(separator: "\u{1e}", omittingEmptySubsequences: false).map(String.init) }
}

/// Minimal HTTP/1.1 over ``RawConnection``: one request per connection (`Connection: close`),
/// so the tests control exactly what is sent. A reply that does not come within a minute (longer
/// than any long-poll a test holds) fails the request instead of hanging the run.
enum HTTPClient {
    static func request(
        _ method: String,
        port: Int,
        target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        from source: String? = nil
    ) async throws -> HTTPReply {
        let connection = try RawConnection.connect(port: port, from: source)
        defer { connection.close() }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method != "GET" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try connection.write(Array(head.utf8) + body)
        return try await withTimeout(60, "the reply to \(method) \(target)") { try await readReply(from: connection) }
    }

    static func get(port: Int, _ target: String, headers: [(String, String)] = [], from source: String? = nil) async throws -> HTTPReply {
        try await request("GET", port: port, target: target, headers: headers, from: source)
    }

    static func post(port: Int, _ target: String, body: String, headers: [(String, String)] = []) async throws -> HTTPReply {
        try await request("POST", port: port, target: target, headers: headers, body: Array(body.utf8))
    }

    /// Reads a response head, then a `Content-Length` or chunked body.
    static func readReply(from connection: RawConnection) async throws -> HTTPReply {
        var reply = try await connection.read { bytes -> (HTTPReply, consumed: Int)? in
            guard let end = find([13, 10, 13, 10], in: bytes) else { return nil }
            let head = String(decoding: bytes[..<end], as: UTF8.self)
            var lines = head.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw RawConnection.Closed() }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { "\($0), \(value)" } ?? value
            }
            return (HTTPReply(status: status, headers: headers, body: []), end + 4)
        }
        if reply.status == 101 { return reply }
        if let length = reply.headers["content-length"].flatMap(Int.init) {
            reply.body = try await connection.read { bytes in
                bytes.count >= length ? (Array(bytes[..<length]), length) : nil
            }
        } else if reply.headers["transfer-encoding"]?.contains("chunked") == true {
            while true {
                let chunk: [UInt8] = try await connection.read { bytes in
                    guard let lineEnd = find([13, 10], in: bytes),
                          let size = Int(String(decoding: bytes[..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
                    let total = lineEnd + 2 + size + 2
                    guard bytes.count >= total else { return nil }
                    return (Array(bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]), total)
                }
                if chunk.isEmpty { break }
                reply.body += chunk
            }
        }
        return reply
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }
}

/// A hand-driven Engine.IO polling session.
struct PollingClient: Sendable {
    let port: Int
    let sid: String
    /// The `open` packet's JSON.
    let handshake: JSONValue

    var target: String { "/socket.io/?EIO=4&transport=polling&sid=\(sid)" }

    /// Opens a session with a handshake GET.
    static func open(port: Int, query: String = "") async throws -> PollingClient {
        let reply = try await HTTPClient.get(port: port, "/socket.io/?EIO=4&transport=polling\(query)")
        guard reply.status == 200, reply.text.hasPrefix("0"),
              let json = try? JSONValue(parsing: String(reply.text.dropFirst())),
              let sid = json["sid"]?.stringValue else {
            throw UnexpectedReply(reply: reply)
        }
        return PollingClient(port: port, sid: sid, handshake: json)
    }

    /// One GET; returns the packets of the body.
    func get() async throws -> HTTPReply {
        try await HTTPClient.get(port: port, target)
    }

    /// One POST of packets joined with the record separator.
    @discardableResult
    func post(_ packets: [String]) async throws -> HTTPReply {
        try await HTTPClient.post(port: port, target, body: packets.joined(separator: "\u{1e}"))
    }

    /// GETs until `count` packets arrived (a GET may carry fewer).
    func receive(_ count: Int) async throws -> [String] {
        var packets: [String] = []
        while packets.count < count {
            let reply = try await get()
            guard reply.status == 200 else { throw RawConnection.Closed() }
            packets += reply.packets
        }
        return packets
    }
}

/// A response the test did not expect.
struct UnexpectedReply: Error, CustomStringConvertible {
    let reply: HTTPReply
    var description: String { "unexpected reply: \(reply)" }
}
