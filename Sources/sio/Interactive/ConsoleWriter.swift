import NIOConcurrencyHelpers
import SioInteractive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one owner of standard output in `sio connect`: every write goes through its lock, so a
/// message arriving from the network never lands in the middle of the prompt line.
///
/// In a terminal, a message clears the prompt line, prints itself, and draws the prompt line
/// again with the partly typed input and the cursor where they were. Without a terminal it
/// writes plain lines.
final class ConsoleWriter: Sendable {
    private struct State {
        /// The input line as last drawn; nil while the prompt is hidden (a command is running).
        var input: (buffer: [Character], cursor: Int)?
    }

    /// Whether to draw a prompt (standard input and output are a terminal).
    let interactive: Bool
    let prompt: String
    private let state = NIOLockedValueBox(State())

    init(interactive: Bool, prompt: String = "sio> ") {
        self.interactive = interactive
        self.prompt = prompt
    }

    /// Prints lines above the prompt line (control characters from the network made harmless).
    func print(_ lines: String...) {
        print(lines: lines)
    }

    func print(lines: [String]) {
        let text = lines.map(TerminalText.sanitized).joined(separator: "\n") + "\n"
        state.withLockedValue { state in
            guard interactive, let input = state.input else { return Self.writeOut(text) }
            Self.writeOut("\r\u{1B}[K" + text + render(input))
        }
    }

    /// Shows the prompt line with `editor`'s input and cursor.
    func showPrompt(_ editor: LineEditorState) {
        guard interactive else { return }
        state.withLockedValue { state in
            state.input = (editor.buffer, editor.cursor)
            Self.writeOut(render((editor.buffer, editor.cursor)))
        }
    }

    /// Leaves `line` on screen after the prompt, as entered, and hides the prompt while the
    /// command runs.
    func submit(_ line: String) {
        guard interactive else { return }
        state.withLockedValue { state in
            let buffer = Array(line)
            state.input = nil
            Self.writeOut(render((buffer, buffer.count)) + "\r\n")
        }
    }

    /// Ctrl-C: marks the dropped line with `^C` and hides the prompt.
    func cancelLine() {
        guard interactive else { return }
        state.withLockedValue { state in
            state.input = nil
            Self.writeOut("^C\r\n")
        }
    }

    /// Ctrl-L: clears the screen; the caller shows the prompt again.
    func clearScreen() {
        guard interactive else { return }
        state.withLockedValue { state in
            state.input = nil
            Self.writeOut("\u{1B}[H\u{1B}[2J")
        }
    }

    /// Draws the prompt line again (after the terminal was resized).
    func redraw() {
        state.withLockedValue { state in
            guard interactive, let input = state.input else { return }
            Self.writeOut(render(input))
        }
    }

    /// Ends the prompt line before the session ends.
    func finish() {
        guard interactive else { return }
        state.withLockedValue { state in
            guard state.input != nil else { return }
            state.input = nil
            Self.writeOut("\r\n")
        }
    }

    private func render(_ input: (buffer: [Character], cursor: Int)) -> String {
        let line = PromptLine(prompt: prompt, buffer: input.buffer, cursor: input.cursor, columns: Terminal.columns)
        let column = line.cursorColumn > 0 ? "\u{1B}[\(line.cursorColumn)C" : ""
        return "\r" + line.text + "\u{1B}[K\r" + column
    }

    private static func writeOut(_ text: String) {
        StandardOutput.write(text)
    }
}
