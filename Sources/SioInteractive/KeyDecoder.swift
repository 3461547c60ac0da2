/// Turns the bytes a terminal in raw mode sends into ``Key``s.
///
/// Reads may split an escape sequence or a UTF-8 character; the incomplete tail waits for the
/// next call. Sequences it does not know (page up, function keys, bracketed paste markers) are
/// dropped whole, so they never turn into stray characters in the line.
package struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// The longest escape sequence kept while waiting for its final byte; longer is garbage.
    private static let maxSequenceLength = 32

    package init() {}

    /// The keys that `bytes` complete, in order.
    package mutating func decode(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = decodeOne(at: index) else { break }  // incomplete: wait
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The key at `index` (nil when the bytes mean nothing to us) and how many bytes it took,
    /// or nil when more bytes are needed.
    private func decodeOne(at index: Int) -> (Key?, Int)? {
        let byte = pending[index]
        switch byte {
        case 0x1B: return decodeEscape(at: index)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x09: return (.tab, 1)
        case 0x7F, 0x08: return (.backspace, 1)
        case 0x01...0x1A: return (.control(Character(Unicode.Scalar(byte + 0x60))), 1)
        case 0x00, 0x1C...0x1F: return (nil, 1)
        case 0x20..<0x80: return (.character(Character(Unicode.Scalar(byte))), 1)
        default: return decodeUTF8(at: index)
        }
    }

    private func decodeUTF8(at index: Int) -> (Key?, Int)? {
        let length: Int
        switch pending[index] {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return (nil, 1)  // not a lead byte
        }
        guard index + length <= pending.count else { return nil }
        let bytes = pending[index..<index + length]
        guard bytes.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }),
            let scalar = String(decoding: bytes, as: UTF8.self).unicodeScalars.first,
            scalar != "\u{FFFD}"
        else { return (nil, 1) }
        return (.character(Character(scalar)), length)
    }

    private func decodeEscape(at index: Int) -> (Key?, Int)? {
        guard index + 1 < pending.count else { return nil }
        switch pending[index + 1] {
        case UInt8(ascii: "["):
            return decodeCSI(at: index)
        case UInt8(ascii: "O"):
            guard index + 2 < pending.count else { return nil }
            return (Self.finalKey(pending[index + 2], parameters: ""), 3)
        case UInt8(ascii: "b"): return (.wordLeft, 2)
        case UInt8(ascii: "f"): return (.wordRight, 2)
        default:
            return (nil, 1)  // a lone escape: drop it, the next byte is a key of its own
        }
    }

    /// `ESC [ parameters final`, e.g. `ESC [ A` (up), `ESC [ 3 ~` (delete), `ESC [ 1 ; 5 C`.
    private func decodeCSI(at index: Int) -> (Key?, Int)? {
        var end = index + 2
        while end < pending.count, !(0x40...0x7E).contains(pending[end]) {
            end += 1
            if end - index > Self.maxSequenceLength { return (nil, end - index) }
        }
        guard end < pending.count else { return nil }
        let parameters = String(decoding: pending[(index + 2)..<end], as: UTF8.self)
        return (Self.finalKey(pending[end], parameters: parameters), end - index + 1)
    }

    private static func finalKey(_ final: UInt8, parameters: String) -> Key? {
        // `1;5C` is ctrl-right, `1;3C` alt-right: both move by words.
        let modified = parameters.hasSuffix(";5") || parameters.hasSuffix(";3")
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return modified ? .wordRight : .right
        case UInt8(ascii: "D"): return modified ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameters {
            case "1", "7": return .home
            case "4", "8": return .end
            case "3": return .delete
            default: return nil
            }
        default: return nil
        }
    }
}
