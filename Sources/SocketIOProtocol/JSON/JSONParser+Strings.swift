extension JSONParser {
    /// Parses a string whose opening quote is at `index`.
    ///
    /// The common case, a string without escapes, is validated in one pass and created straight
    /// from its byte range. Only strings with escapes are assembled, in the reused `scratch`.
    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        while index < end {
            let byte = base[index]
            if byte == JSONByte.quote {
                let string = String(
                    decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
                index += 1
                return string
            }
            if byte == JSONByte.backslash { return try parseEscapedString(from: start) }
            try skipCharacter(byte)
        }
        throw JSONError(.unexpectedEnd, offset: index)
    }

    /// Continues a string at its first backslash, copying unescaped runs as slices.
    private mutating func parseEscapedString(from start: Int) throws(JSONError) -> String {
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        while index < end {
            let byte = base[index]
            if byte == JSONByte.quote || byte == JSONByte.backslash {
                if runStart < index {
                    scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                }
                if byte == JSONByte.quote {
                    index += 1
                    // Every byte was validated (or produced by an escape), so no repairs happen.
                    return String(decoding: scratch, as: UTF8.self)
                }
                try decodeEscape()
                runStart = index
            } else {
                try skipCharacter(byte)
            }
        }
        throw JSONError(.unexpectedEnd, offset: index)
    }

    /// Steps over one unescaped character, rejecting raw control characters and bad UTF-8.
    @inline(__always)
    private mutating func skipCharacter(_ byte: UInt8) throws(JSONError) {
        if byte >= 0x20, byte < 0x80 {
            index += 1
        } else if byte < 0x20 {
            throw JSONError(.unexpectedCharacter, offset: index)
        } else {
            try skipUTF8Sequence(lead: byte)
        }
    }

    /// Validates one multi-byte UTF-8 sequence (Unicode Table 3-7: no overlongs, no surrogates,
    /// nothing above U+10FFFF) and steps over it.
    private mutating func skipUTF8Sequence(lead: UInt8) throws(JSONError) {
        var length = 2
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, lower) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, upper) = (3, 0x9F)
        case 0xF0: (length, lower) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, upper) = (4, 0x8F)
        default: throw JSONError(.invalidUTF8, offset: index)
        }
        for offset in 1..<length {
            guard index + offset < end else { throw JSONError(.unexpectedEnd, offset: end) }
            let byte = base[index + offset]
            guard byte >= lower, byte <= upper else { throw JSONError(.invalidUTF8, offset: index) }
            (lower, upper) = (0x80, 0xBF)
        }
        index += length
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    ///
    /// `\uXXXX` surrogate pairs combine into one scalar; a surrogate without its partner becomes
    /// U+FFFD, since Swift strings cannot hold lone surrogates (what `JSON.parse` would keep).
    private mutating func decodeEscape() throws(JSONError) {
        let escapeStart = index
        guard index + 1 < end else { throw JSONError(.unexpectedEnd, offset: end) }
        let byte = base[index + 1]
        index += 2
        switch byte {
        case JSONByte.quote, JSONByte.backslash, JSONByte.slash: scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4(escapeStart: escapeStart)
            var scalar = unit
            if unit & 0xFC00 == 0xD800 {
                scalar = 0xFFFD
                let secondStart = index
                if index + 1 < end, base[index] == JSONByte.backslash, base[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    let low = try readHex4(escapeStart: secondStart)
                    if low & 0xFC00 == 0xDC00 {
                        scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        index = secondStart  // not a partner: decode it on its own next
                    }
                }
            } else if unit & 0xFC00 == 0xDC00 {
                scalar = 0xFFFD
            }
            appendUTF8(scalar)
        default:
            throw JSONError(.invalidEscape, offset: escapeStart)
        }
    }

    private mutating func readHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < end else { throw JSONError(.unexpectedEnd, offset: end) }
            let byte = base[index]
            let nibble: UInt8
            switch byte {
            case JSONByte.zero...JSONByte.nine: nibble = byte - JSONByte.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, offset: escapeStart)
            }
            value = value << 4 | UInt32(nibble)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
