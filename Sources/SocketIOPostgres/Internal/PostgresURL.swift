/// A connection URL, `postgres://user[:password]@host[:port]/database`, read as libpq reads the
/// common cases: `postgresql://` works too, user and password may be percent-encoded, an IPv6
/// host goes in brackets, the port defaults to 5432 and the database to the user's name.
///
/// TLS is not offered: `sslmode` may only be `disable`, `allow` or `prefer` (all of which
/// connect in plain text here), and no other query parameter is accepted, so a setting that
/// would be silently ignored fails instead.
struct PostgresURL: Sendable, Hashable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String?

    init(parsing text: String) throws(PostgresClusterTransportError) {
        guard let schemeEnd = text.firstRange(of: "://") else { throw .invalidURL("expected postgres://…") }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw .invalidURL("scheme must be postgres or postgresql, not \"\(scheme)\"")
        }
        var rest = text[schemeEnd.upperBound...]
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        guard let at = rest.lastIndex(of: "@") else { throw .invalidURL("no user (user@host)") }
        let userInfo = rest[..<at]
        let hostPort = rest[rest.index(after: at)...]

        if let colon = userInfo.firstIndex(of: ":") {
            username = try Self.decoded(userInfo[..<colon], "user")
            password = try Self.decoded(userInfo[userInfo.index(after: colon)...], "password")
        } else {
            username = try Self.decoded(userInfo, "user")
            password = nil
        }
        guard !username.isEmpty else { throw .invalidURL("empty user") }
        (host, port) = try Self.hostAndPort(hostPort)
        database = path.isEmpty ? nil : try Self.decoded(path, "database")
        try Self.checkParameters(query)
    }

    private static func hostAndPort(_ text: Substring) throws(PostgresClusterTransportError) -> (String, Int) {
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .invalidURL("unclosed [ in host") }
            host = text[text.index(after: text.startIndex) ..< close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("unexpected text after ]") }
                port = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalidURL("empty host") }
        guard let port else { return (String(host), 5432) }
        guard let number = Int(port), (1 ... 65535).contains(number) else {
            throw .invalidURL("port \"\(port)\" is not a number from 1 to 65535")
        }
        return (String(host), number)
    }

    private static func checkParameters(_ query: Substring) throws(PostgresClusterTransportError) {
        for parameter in query.split(separator: "&") {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0]
            let value = pair.count > 1 ? pair[1] : ""
            guard name == "sslmode" else { throw .invalidURL("unsupported parameter \"\(name)\"") }
            guard ["disable", "allow", "prefer"].contains(value) else {
                throw .invalidURL("sslmode=\(value) needs TLS, which this transport does not offer")
            }
        }
    }

    /// Percent-decodes `text`; `part` names it in the error (never its content, which may be a
    /// password).
    private static func decoded(_ text: Substring, _ part: String) throws(PostgresClusterTransportError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .invalidURL("bad percent-encoding in the \(part)")
            }
            bytes.append(high << 4 | low)
        }
        // Decoding repairs invalid UTF-8; a round trip that changes the bytes means there was some.
        let string = String(decoding: bytes, as: UTF8.self)
        guard string.utf8.elementsEqual(bytes) else { throw .invalidURL("the \(part) is not UTF-8") }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
