@testable import SocketIOProtocol
import Testing

/// Query strings as socket.io's peers write them (JavaScript's `encodeURIComponent`; the
/// expected texts are its output, checked with Python's `urllib.parse.quote(s, safe="!~*'()")`)
/// and read them (Node's `querystring`: `+` is a space).
@Suite struct QueryStringTests {
    @Test(arguments: [
        ("a+b c&d=e%f?", "a%2Bb%20c%26d%3De%25f%3F"),
        ("Zoë", "Zo%C3%AB"),
        ("!'()*-._~", "!'()*-._~"),
        ("/:@$,;#[]", "%2F%3A%40%24%2C%3B%23%5B%5D"),
        ("😀", "%F0%9F%98%80"),
    ])
    func encodesAsEncodeURIComponent(text: String, encoded: String) {
        #expect(QueryString.encodeComponent(text) == encoded)
        #expect(QueryString.decodeComponent(Substring(encoded)) == text)
    }

    @Test func pairs() {
        let query = QueryString.encode([("EIO", "4"), ("token", "a+b"), ("flag", nil), ("é", "x y")])
        #expect(query == "EIO=4&token=a%2Bb&flag&%C3%A9=x%20y")
        #expect(QueryString.parameters(Substring(query)) == ["EIO": "4", "token": "a+b", "flag": "", "é": "x y"])
    }

    @Test func readsAsNodesQuerystring() {
        // `+` is a space; the first of a repeated name wins; empty pairs are skipped; an escape
        // that is not UTF-8 leaves the text as it came.
        #expect(QueryString.parameters("a=1+2&a=3&&b=%20x&c=%E0%A4%A") == ["a": "1 2", "b": " x", "c": "%E0%A4%A"])
    }
}
