import Foundation

/// Query strings as socket.io's peers write and read them: the Engine.IO request query
/// (`EIO=4&transport=polling&…` and the app's own parameters) and, in protocol v4, the auth a
/// CONNECT carries in its namespace (`/admin?token=…`). Written as JavaScript's
/// `encodeURIComponent` writes each name and value (so a `+` goes as `%2B`), read as Node's
/// `querystring` reads them (`+` is a space, then percent-decoding).
package enum QueryString {
    /// Whether `encodeURIComponent` leaves `byte` as it is: ASCII letters, digits and `-_.!~*'()`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "!"), UInt8(ascii: "~"),
             UInt8(ascii: "*"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"):
            true
        default:
            false
        }
    }

    /// The digits of a `%XX` escape.
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `name=value` pairs joined with `&`, each part encoded; a pair without a value is its name.
    package static func encode(_ pairs: [(name: String, value: String?)]) -> String {
        pairs.map { pair in
            let name = encodeComponent(pair.name)
            guard let value = pair.value else { return name }
            return name + "=" + encodeComponent(value)
        }.joined(separator: "&")
    }

    /// One name or value, as `encodeURIComponent` writes it (UTF-8, `%XX` in capitals).
    package static func encodeComponent(_ text: String) -> String {
        // Engine.IO's own parameters (`EIO=4`, `transport=polling`, a sid, `t=…`) need none, and
        // one goes with every polling request.
        guard !text.utf8.allSatisfy(isUnreserved) else { return text }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(hexDigits[Int(byte >> 4)])
                encoded.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The parameters of `query` (the text after `?`), the first value of a repeated name kept.
    package static func parameters(_ query: Substring) -> [String: String] {
        var parameters: [String: String] = [:]
        var rest = query
        // Split on the bytes `&` and `=` (ASCII, so never inside another character): every
        // polling request has a query, and walking it character by character showed in profiles.
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
            let pair = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
            guard !pair.isEmpty else { continue }
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            let name = decodeComponent(equals.map { pair[..<$0] } ?? pair)
            let value = equals.map { decodeComponent(pair[pair.utf8.index(after: $0)...]) } ?? ""
            if parameters[name] == nil { parameters[name] = value }
        }
        return parameters
    }

    /// One name or value, as Node's `querystring` reads it: `+` is a space, then `%XX` escapes
    /// (a text whose escapes are not UTF-8 is kept as it came, spaces for `+` aside).
    package static func decodeComponent(_ text: Substring) -> String {
        // Engine.IO's own parameters (`EIO=4`, `transport=polling`, a sid, `t=…`) need none.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else { return String(text) }
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
