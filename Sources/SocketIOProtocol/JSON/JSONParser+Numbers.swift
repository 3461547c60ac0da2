extension JSONParser {
    @inline(__always)
    func digit(at position: Int) -> UInt8? {
        guard position < end else { return nil }
        let value = base[position] &- JSONByte.zero
        return value < 10 ? value : nil
    }

    /// Validates RFC 8259's number grammar and converts. Numbers whose digits fit in 2^53 and
    /// whose decimal exponent is within ±22 are converted exactly with one multiplication or
    /// division (correctly rounded); the rest go through the standard library's correctly
    /// rounded text conversion, so results match `JSON.parse` bit for bit.
    mutating func parseNumber() throws(JSONError) -> Double {
        let start = index
        let negative = base[index] == JSONByte.minus
        if negative { index += 1 }
        var mantissa: UInt64 = 0
        var mantissaOverflow = false
        func accumulate(_ digit: UInt8) {
            if mantissa <= (UInt64.max - 9) / 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
            } else {
                mantissaOverflow = true
            }
        }

        guard let first = digit(at: index) else { throw JSONError(.invalidNumber, offset: index) }
        index += 1
        if first == 0 {
            if digit(at: index) != nil { throw JSONError(.invalidNumber, offset: index) }
        } else {
            accumulate(first)
            while let next = digit(at: index) {
                accumulate(next)
                index += 1
            }
        }

        var fractionDigits = 0
        if index < end, base[index] == JSONByte.period {
            index += 1
            guard digit(at: index) != nil else { throw JSONError(.invalidNumber, offset: index) }
            while let next = digit(at: index) {
                accumulate(next)
                fractionDigits += 1
                index += 1
            }
        }

        var exponent = 0
        if index < end, base[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < end, base[index] == JSONByte.minus || base[index] == JSONByte.plus {
                exponentNegative = base[index] == JSONByte.minus
                index += 1
            }
            guard digit(at: index) != nil else { throw JSONError(.invalidNumber, offset: index) }
            while let next = digit(at: index) {
                if exponent < 100_000 { exponent = exponent * 10 + Int(next) }
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }

        if !mantissaOverflow, mantissa <= 1 << 53 {
            let power = exponent - fractionDigits
            let magnitude = Double(mantissa)
            var result: Double?
            if power == 0 {
                result = magnitude
            } else if power > 0, power <= 22 {
                result = magnitude * JSONParser.powersOfTen[power]
            } else if power < 0, power >= -22 {
                result = magnitude / JSONParser.powersOfTen[-power]
            }
            if let result { return negative ? -result : result }
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
        guard let value = Double(text) else { throw JSONError(.invalidNumber, offset: start) }
        return value
    }

    /// 10^0 … 10^22, all exactly representable as `Double`.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
