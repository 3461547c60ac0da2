import NIOCore
import NIOEmbedded
import NIOHTTP1
import SwitchboardCore
import Testing

/// The rule every caller-given header is checked with before a connection is made, byte by
/// byte against NIO's own check of the headers it writes (`NIOHTTPRequestHeadersValidator`).
@Suite struct HTTPHeaderFieldTests {
    @Test func tokensAndPlainValuesPass() {
        #expect(HTTPHeaderField.problem(name: "Authorization", value: "Bearer a.b+c/d=") == nil)
        #expect(HTTPHeaderField.problem(name: "X-Weird!#$%&'*+-.^_`|~", value: "") == nil)
        #expect(HTTPHeaderField.problem(name: "X-Tab", value: "a\tb") == nil)
        #expect(HTTPHeaderField.problem(name: "X-Text", value: "Überschrift é 漢字") == nil)
    }

    @Test func namesThatAreNoTokenAreRefusedNamingTheHeader() throws {
        #expect(HTTPHeaderField.problem(name: "", value: "x") == "a header has an empty name")
        for name in ["Überschrift", "X A", "X:A", "X\r\nInjected", "(x)"] {
            let problem = try #require(HTTPHeaderField.problem(name: name, value: "x"), "\(name)")
            #expect(problem.contains("\"\(name)\" is not an HTTP token"))
        }
    }

    @Test func controlCharactersInValuesAreRefused() throws {
        for value in ["a\r\nInjected: 1", "a\nb", "a\0b", "a\u{7F}", "\u{1B}[31m"] {
            let problem = try #require(HTTPHeaderField.problem(name: "X-A", value: value), "\(value.debugDescription)")
            #expect(problem.contains("header \"X-A\" has a control character"))
        }
    }

    @Test func theFirstBadHeaderOfAListIsNamed() {
        let headers = [(name: "A", value: "1"), (name: "B", value: "2\n"), (name: "C D", value: "3")]
        #expect(HTTPHeaderField.problem(in: headers)?.contains("\"B\"") == true)
        #expect(HTTPHeaderField.problem(in: [(name: "A", value: "1")]) == nil)
    }

    /// Every byte as a name of one character (ASCII: NIO stops the process on any other) and in
    /// a value: ours refuses exactly what NIO's validator would not write.
    @Test func agreesWithNIOByteByByte() throws {
        for byte in UInt8(0)...UInt8(127) {
            let name = String(UnicodeScalar(byte))
            let ours = HTTPHeaderField.problem(name: name, value: "v") == nil
            #expect(ours == (try nioWrites(name: name, value: "v")), "name byte \(byte)")
        }
        for scalar in UInt8(0)...UInt8(255) {
            let value = "a" + String(UnicodeScalar(scalar)) + "b"
            let ours = HTTPHeaderField.problem(name: "X-A", value: value) == nil
            #expect(ours == (try nioWrites(name: "X-A", value: value)), "value scalar \(scalar)")
        }
    }

    private func nioWrites(name: String, value: String) throws -> Bool {
        let channel = EmbeddedChannel(handler: NIOHTTPRequestHeadersValidator())
        defer { _ = try? channel.finish() }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: HTTPHeaders([(name, value)]))
        do {
            try channel.writeOutbound(HTTPClientRequestPart.head(head))
            return true
        } catch HTTPParserError.invalidHeaderToken {
            return false
        }
    }
}
