import SioInteractive
import Testing

@Suite struct TerminalTextTests {
    @Test func plainTextIsUnchanged() {
        #expect(TerminalText.sanitized(#"← echo ["héllo 漢字 😀"]"#) == #"← echo ["héllo 漢字 😀"]"#)
    }

    @Test func controlCharactersBecomeVisible() {
        #expect(TerminalText.sanitized("evil\u{1B}[2J\u{7}") == #"evil\u{1b}[2J\u{7}"#)
        #expect(TerminalText.sanitized("c1\u{9B}31m del\u{7F}") == #"c1\u{9b}31m del\u{7f}"#)
    }
}
