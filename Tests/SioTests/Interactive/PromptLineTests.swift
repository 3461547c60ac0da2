import SioInteractive
import Testing

@Suite struct PromptLineTests {
    @Test func aShortLineShowsWhole() {
        let line = PromptLine(prompt: "sio> ", buffer: Array("status"), cursor: 3, columns: 80)
        #expect(line.text == "sio> status")
        #expect(line.cursorColumn == 8)
    }

    @Test func aLongLineScrollsToKeepTheCursorInView() {
        let buffer = Array("0123456789abcdefghij")
        // 20 columns: the prompt takes 5, the text at most 14 (the last column stays empty)
        let atEnd = PromptLine(prompt: "sio> ", buffer: buffer, cursor: 20, columns: 20)
        #expect(atEnd.text == "sio> 6789abcdefghij")
        #expect(atEnd.cursorColumn == 19)
        let atStart = PromptLine(prompt: "sio> ", buffer: buffer, cursor: 0, columns: 20)
        #expect(atStart.text == "sio> 0123456789abcd")
        #expect(atStart.cursorColumn == 5)
        let middle = PromptLine(prompt: "sio> ", buffer: buffer, cursor: 17, columns: 20)
        #expect(middle.text == "sio> 3456789abcdefg")
        #expect(middle.cursorColumn == 19)
    }

    @Test func wideCharactersTakeTwoColumns() {
        let line = PromptLine(prompt: "> ", buffer: Array("漢字x"), cursor: 2, columns: 80)
        #expect(line.cursorColumn == 6)
        #expect(DisplayWidth.of("e\u{301}") == 1)  // a combining accent takes none
    }

    @Test func aTinyTerminalStillShowsTheCursor() {
        let line = PromptLine(prompt: "sio> ", buffer: Array("abc"), cursor: 3, columns: 3)
        #expect(line.text == "sio> c")
        #expect(line.cursorColumn == 6)
    }
}
