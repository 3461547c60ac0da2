/// Text from the network made safe to print on a terminal.
package enum TerminalText {
    /// `text` with control characters (escape sequences a server could put in an event name or a
    /// string: clear the screen, move the cursor, retitle the window) shown as `\u{…}` instead.
    package static func sanitized(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
