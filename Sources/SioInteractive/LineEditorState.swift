/// The line being typed at the prompt, the cursor in it, and the session's history: a pure value
/// that turns each ``Key`` into a ``LineEditorAction``. The terminal side draws and runs actions.
///
/// Keys, as in readline's emacs mode: left/right (ctrl-B/F), home/end (ctrl-A/E), ctrl/alt and
/// left/right by words, backspace, delete (ctrl-D on a non-empty line), ctrl-U/K delete to the
/// start/end, ctrl-W the word before the cursor, up/down (ctrl-P/N) walk the history, ctrl-C drops
/// the line, ctrl-D on an empty line ends the session, ctrl-L clears the screen.
///
/// ```swift
/// var editor = LineEditorState(history: ["status"])
/// editor.handle(.up)      // .redraw, line == "status"
/// editor.handle(.enter)   // .submit("status")
/// ```
package struct LineEditorState: Sendable, Equatable {
    /// The characters of the line being edited.
    package private(set) var buffer: [Character] = []
    /// The cursor, in characters from the start of the line (0...buffer.count).
    package private(set) var cursor = 0
    /// Submitted lines, oldest first: no empty lines, no immediate repeats.
    package private(set) var history: [String]
    /// How many lines the history keeps (the oldest go first).
    package let historyLimit: Int
    /// The history entry shown, when walking the history; nil while editing a new line.
    private var historyIndex: Int?
    /// The new line, kept while the history is walked so that coming back down restores it.
    private var draft: [Character] = []

    /// An empty line with `history` (oldest first) to walk with up and down.
    package init(history: [String] = [], historyLimit: Int = 1000) {
        self.historyLimit = max(historyLimit, 0)
        self.history = Array(history.suffix(self.historyLimit))
    }

    /// The line being edited.
    package var line: String { String(buffer) }

    /// Applies one key.
    @discardableResult
    package mutating func handle(_ key: Key) -> LineEditorAction {
        switch key {
        case .character(let character):
            buffer.insert(character, at: cursor)
            cursor += 1
            return .redraw
        case .enter:
            return submit()
        case .tab:
            return .none
        case .backspace:
            guard cursor > 0 else { return .none }
            cursor -= 1
            buffer.remove(at: cursor)
            return .redraw
        case .delete:
            guard cursor < buffer.count else { return .none }
            buffer.remove(at: cursor)
            return .redraw
        case .left:
            return moveCursor(to: cursor - 1)
        case .right:
            return moveCursor(to: cursor + 1)
        case .home:
            return moveCursor(to: 0)
        case .end:
            return moveCursor(to: buffer.count)
        case .wordLeft:
            return moveCursor(to: startOfWord(before: cursor))
        case .wordRight:
            return moveCursor(to: endOfWord(after: cursor))
        case .up:
            return showHistory(at: (historyIndex ?? history.count) - 1)
        case .down:
            guard let historyIndex else { return .none }
            return showHistory(at: historyIndex + 1)
        case .control(let letter):
            return handleControl(letter)
        }
    }

    private mutating func handleControl(_ letter: Character) -> LineEditorAction {
        switch letter {
        case "a": return handle(.home)
        case "e": return handle(.end)
        case "b": return handle(.left)
        case "f": return handle(.right)
        case "p": return handle(.up)
        case "n": return handle(.down)
        case "h": return handle(.backspace)
        case "d": return buffer.isEmpty ? .endOfInput : handle(.delete)
        case "u": return deleteRange(0..<cursor)
        case "k": return deleteRange(cursor..<buffer.count)
        case "w": return deleteRange(startOfWord(before: cursor)..<cursor)
        case "c":
            reset()
            return .cancel
        case "l": return .clearScreen
        default: return .none
        }
    }

    private mutating func submit() -> LineEditorAction {
        let line = self.line
        reset()
        if !line.allSatisfy(\.isWhitespace), line != history.last, historyLimit > 0 {
            history.append(line)
            if history.count > historyLimit { history.removeFirst(history.count - historyLimit) }
        }
        return .submit(line)
    }

    private mutating func reset() {
        buffer = []
        cursor = 0
        historyIndex = nil
        draft = []
    }

    private mutating func moveCursor(to position: Int) -> LineEditorAction {
        let position = min(max(position, 0), buffer.count)
        guard position != cursor else { return .none }
        cursor = position
        return .redraw
    }

    private mutating func deleteRange(_ range: Range<Int>) -> LineEditorAction {
        guard !range.isEmpty else { return .none }
        buffer.removeSubrange(range)
        cursor = range.lowerBound
        return .redraw
    }

    /// Shows history entry `index`; one past the last is the draft.
    private mutating func showHistory(at index: Int) -> LineEditorAction {
        guard index >= 0, index <= history.count else { return .none }
        if historyIndex == nil {
            guard index < history.count else { return .none }
            draft = buffer
        }
        if index == history.count {
            buffer = draft
            historyIndex = nil
        } else {
            buffer = Array(history[index])
            historyIndex = index
        }
        cursor = buffer.count
        return .redraw
    }

    /// Where the whitespace-separated word before `position` starts (readline's ctrl-W).
    private func startOfWord(before position: Int) -> Int {
        var index = position
        while index > 0, buffer[index - 1].isWhitespace { index -= 1 }
        while index > 0, !buffer[index - 1].isWhitespace { index -= 1 }
        return index
    }

    /// Where the word after `position` ends.
    private func endOfWord(after position: Int) -> Int {
        var index = position
        while index < buffer.count, buffer[index].isWhitespace { index += 1 }
        while index < buffer.count, !buffer[index].isWhitespace { index += 1 }
        return index
    }
}

/// What the terminal does after a key.
package enum LineEditorAction: Sendable, Hashable {
    /// Nothing changed.
    case none
    /// The line or the cursor changed: draw the prompt line again.
    case redraw
    /// Enter: run this line; the editor is empty again.
    case submit(String)
    /// Ctrl-C: the line was dropped; show a fresh prompt.
    case cancel
    /// Ctrl-D on an empty line: end the session.
    case endOfInput
    /// Ctrl-L: clear the screen and draw the prompt line at the top.
    case clearScreen
}
