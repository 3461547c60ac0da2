/// What the prompt line shows in a terminal `columns` wide: the prompt, then as much of the
/// buffer as fits with the cursor in view (the line scrolls sideways instead of wrapping, so it
/// can always be redrawn from the start of one row).
package struct PromptLine: Sendable, Hashable {
    /// The prompt and the visible part of the buffer.
    package var text: String
    /// The cursor's column, from 0.
    package var cursorColumn: Int

    /// The prompt line for `buffer` with the cursor before `buffer[cursor]`.
    ///
    /// The text stays within `columns - 1` columns: writing the last column would leave the
    /// terminal waiting to wrap, and the next carriage return would go to the wrong row.
    package init(prompt: String, buffer: [Character], cursor: Int, columns: Int) {
        let promptWidth = DisplayWidth.of(prompt)
        let room = max(columns - 1 - promptWidth, 1)
        let cursor = min(max(cursor, 0), buffer.count)
        let widths = buffer.map(DisplayWidth.of)

        // Scroll just enough that the cursor fits.
        var start = 0
        var beforeCursor = widths[..<cursor].reduce(0, +)
        while beforeCursor > room, start < cursor {
            beforeCursor -= widths[start]
            start += 1
        }
        var end = start
        var shown = 0
        while end < buffer.count, shown + widths[end] <= room {
            shown += widths[end]
            end += 1
        }
        self.text = prompt + String(buffer[start..<max(end, start)])
        self.cursorColumn = promptWidth + beforeCursor
    }
}

/// How many terminal columns text takes: 2 for East Asian wide characters and emoji, 0 for
/// combining marks and controls, 1 otherwise. An approximation of `wcwidth` good enough to keep
/// the cursor where the user sees it.
package enum DisplayWidth {
    package static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    package static func of(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .control, .format: return 0
        default: break
        }
        return isWide(scalar.value) ? 2 : 1
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
