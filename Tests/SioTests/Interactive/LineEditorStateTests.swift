import SioInteractive
import Testing

@Suite struct LineEditorStateTests {
    /// Types `text` one character at a time.
    private func typed(_ text: String, into editor: inout LineEditorState) {
        for character in text { editor.handle(.character(character)) }
    }

    @Test func typingInsertsAtTheCursor() {
        var editor = LineEditorState()
        typed("emit ech 1", into: &editor)
        #expect(editor.cursor == 10)
        editor.handle(.left)
        editor.handle(.left)
        #expect(editor.handle(.character("o")) == .redraw)
        #expect(editor.line == "emit echo 1")
        #expect(editor.cursor == 9)
    }

    @Test func backspaceAndDeleteRemoveAroundTheCursor() {
        var editor = LineEditorState()
        typed("abcd", into: &editor)
        editor.handle(.left)
        #expect(editor.handle(.backspace) == .redraw)
        #expect(editor.line == "abd")
        #expect(editor.handle(.delete) == .redraw)
        #expect(editor.line == "ab")
        #expect(editor.handle(.delete) == .none)  // at the end
        editor.handle(.home)
        #expect(editor.handle(.backspace) == .none)  // at the start
        #expect(editor.line == "ab")
    }

    @Test func homeEndAndControlAE() {
        var editor = LineEditorState()
        typed("status", into: &editor)
        #expect(editor.handle(.control("a")) == .redraw)
        #expect(editor.cursor == 0)
        #expect(editor.handle(.home) == .none)
        #expect(editor.handle(.control("e")) == .redraw)
        #expect(editor.cursor == 6)
        editor.handle(.home)
        #expect(editor.handle(.end) == .redraw)
        #expect(editor.cursor == 6)
        #expect(editor.handle(.right) == .none)
    }

    @Test func controlUAndKDeleteToTheStartAndTheEnd() {
        var editor = LineEditorState()
        typed("emit echo 42", into: &editor)
        for _ in 0..<3 { editor.handle(.left) }
        #expect(editor.handle(.control("k")) == .redraw)
        #expect(editor.line == "emit echo")
        editor.handle(.left)
        #expect(editor.handle(.control("u")) == .redraw)
        #expect(editor.line == "o")
        #expect(editor.cursor == 0)
        #expect(editor.handle(.control("u")) == .none)
    }

    @Test func controlWDeletesTheWordBeforeTheCursor() {
        var editor = LineEditorState()
        typed("emit echo   \"hi\"  ", into: &editor)
        editor.handle(.control("w"))
        #expect(editor.line == "emit echo   ")
        editor.handle(.control("w"))
        #expect(editor.line == "emit ")
        editor.handle(.control("w"))
        #expect(editor.line == "")
        #expect(editor.handle(.control("w")) == .none)
    }

    @Test func wordMovement() {
        var editor = LineEditorState()
        typed("ack event 1", into: &editor)
        editor.handle(.wordLeft)
        #expect(editor.cursor == 10)
        editor.handle(.wordLeft)
        #expect(editor.cursor == 4)
        editor.handle(.wordRight)
        #expect(editor.cursor == 9)
    }

    @Test func enterSubmitsAndEmptiesTheLine() {
        var editor = LineEditorState()
        typed("status", into: &editor)
        editor.handle(.left)
        #expect(editor.handle(.enter) == .submit("status"))  // the whole line, wherever the cursor
        #expect(editor.line == "")
        #expect(editor.cursor == 0)
        #expect(editor.history == ["status"])
    }

    @Test func historyKeepsNoBlankLinesAndNoImmediateRepeats() {
        var editor = LineEditorState()
        for line in ["status", "status", "   ", "help", "status"] {
            typed(line, into: &editor)
            editor.handle(.enter)
        }
        #expect(editor.handle(.enter) == .submit(""))
        #expect(editor.history == ["status", "help", "status"])
    }

    @Test func historyIsBounded() {
        var editor = LineEditorState(history: ["a", "b", "c"], historyLimit: 2)
        #expect(editor.history == ["b", "c"])
        typed("d", into: &editor)
        editor.handle(.enter)
        #expect(editor.history == ["c", "d"])
    }

    @Test func upAndDownWalkTheHistoryAndRestoreTheDraft() {
        var editor = LineEditorState(history: ["emit echo 1", "status"])
        typed("he", into: &editor)
        #expect(editor.handle(.up) == .redraw)
        #expect(editor.line == "status")
        #expect(editor.cursor == 6)
        #expect(editor.handle(.control("p")) == .redraw)
        #expect(editor.line == "emit echo 1")
        #expect(editor.handle(.up) == .none)  // the oldest
        #expect(editor.line == "emit echo 1")
        #expect(editor.handle(.down) == .redraw)
        #expect(editor.line == "status")
        #expect(editor.handle(.control("n")) == .redraw)
        #expect(editor.line == "he")  // the draft is back
        #expect(editor.handle(.down) == .none)
    }

    @Test func aRecalledLineCanBeEditedAndSubmitted() {
        var editor = LineEditorState(history: ["emit echo 1"])
        editor.handle(.up)
        editor.handle(.backspace)
        typed("2", into: &editor)
        #expect(editor.handle(.enter) == .submit("emit echo 2"))
        #expect(editor.history == ["emit echo 1", "emit echo 2"])
        editor.handle(.up)
        #expect(editor.line == "emit echo 2")
    }

    @Test func upWithoutHistoryDoesNothing() {
        var editor = LineEditorState()
        typed("x", into: &editor)
        #expect(editor.handle(.up) == .none)
        #expect(editor.handle(.down) == .none)
        #expect(editor.line == "x")
    }

    @Test func controlCDropsTheLineAndLeavesTheHistory() {
        var editor = LineEditorState(history: ["status"])
        editor.handle(.up)
        typed(" x", into: &editor)
        #expect(editor.handle(.control("c")) == .cancel)
        #expect(editor.line == "")
        #expect(editor.history == ["status"])
        #expect(editor.handle(.down) == .none)  // back to a new line, not in the history
    }

    @Test func controlDEndsOnlyAnEmptyLine() {
        var editor = LineEditorState()
        #expect(editor.handle(.control("d")) == .endOfInput)
        typed("ab", into: &editor)
        editor.handle(.home)
        #expect(editor.handle(.control("d")) == .redraw)  // deletes under the cursor
        #expect(editor.line == "b")
    }

    @Test func otherKeys() {
        var editor = LineEditorState()
        #expect(editor.handle(.control("l")) == .clearScreen)
        #expect(editor.handle(.tab) == .none)
        #expect(editor.handle(.control("z")) == .none)
        typed("é漢", into: &editor)
        editor.handle(.control("b"))
        editor.handle(.control("h"))
        #expect(editor.line == "漢")
        editor.handle(.control("f"))
        #expect(editor.cursor == 1)
    }
}
