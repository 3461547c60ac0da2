import SioInteractive
import Testing

@Suite struct KeyDecoderTests {
    private func decode(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.decode(bytes)
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func printableCharactersAndEnter() {
        #expect(decode(bytes("ab\r")) == [.character("a"), .character("b"), .enter])
        #expect(decode([0x0A]) == [.enter])
    }

    @Test func controlKeys() {
        #expect(decode([0x01, 0x05, 0x15, 0x0B, 0x17, 0x03, 0x04]) == [
            .control("a"), .control("e"), .control("u"), .control("k"), .control("w"), .control("c"), .control("d"),
        ])
        #expect(decode([0x7F, 0x08, 0x09]) == [.backspace, .backspace, .tab])
    }

    @Test func arrowsHomeEndDelete() {
        #expect(decode(bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D")) == [.up, .down, .right, .left])
        #expect(decode(bytes("\u{1B}[H\u{1B}[F\u{1B}OH\u{1B}OF")) == [.home, .end, .home, .end])
        #expect(decode(bytes("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~\u{1B}[3~")) == [.home, .end, .home, .end, .delete])
        #expect(decode(bytes("\u{1B}OA\u{1B}OD")) == [.up, .left])  // application cursor mode
    }

    @Test func wordMovement() {
        #expect(decode(bytes("\u{1B}[1;5D\u{1B}[1;5C\u{1B}[1;3D\u{1B}b\u{1B}f")) == [
            .wordLeft, .wordRight, .wordLeft, .wordLeft, .wordRight,
        ])
    }

    @Test func unknownSequencesAreDroppedWhole() {
        // page up, F5, bracketed-paste markers: nothing, and no stray characters
        #expect(decode(bytes("\u{1B}[5~\u{1B}[15~\u{1B}[200~x\u{1B}[201~")) == [.character("x")])
    }

    @Test func aSequenceSplitAcrossReadsWaitsForItsEnd() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(bytes("[")) == [])
        #expect(decoder.decode(bytes("3")) == [])
        #expect(decoder.decode(bytes("~a")) == [.delete, .character("a")])
    }

    @Test func aLoneEscapeIsDropped() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]) == [])
        #expect(decoder.decode(bytes("x")) == [.character("x")])
    }

    @Test func utf8CharactersAlsoWhenSplit() {
        #expect(decode(bytes("é漢😀")) == [.character("é"), .character("漢"), .character("😀")])
        var decoder = KeyDecoder()
        let smile = bytes("😀")
        #expect(decoder.decode(smile[..<2]) == [])
        #expect(decoder.decode(smile[2...]) == [.character("😀")])
    }

    @Test func invalidBytesAreSkipped() {
        #expect(decode([0xFF, 0x80, UInt8(ascii: "a"), 0xC3, UInt8(ascii: "b")]) == [.character("a"), .character("b")])
        #expect(decode([0x00, 0x1C, UInt8(ascii: "z")]) == [.character("z")])
    }

    @Test func anOverlongSequenceIsDroppedNotKept() {
        var decoder = KeyDecoder()
        let garbage = [0x1B, UInt8(ascii: "[")] + Array(repeating: UInt8(ascii: "1"), count: 100)
        #expect(decoder.decode(garbage + bytes("~x")).last == .character("x"))
    }
}
