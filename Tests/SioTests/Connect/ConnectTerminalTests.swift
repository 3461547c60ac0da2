import Foundation
import SocketIOServer
import SwitchboardTestSupport
import Testing

/// `sio connect` in a real terminal (tmux): keys in, screen out, as a person would use it.
@Suite struct ConnectTerminalTests {
    @Test func commandsLineEditingAndHistory() async throws {
        try await ConnectPane.with("commandsLineEditingAndHistory") { session in
            let pane = session.pane
            // An ack whose arguments contain spaces.
            try await session.enter(#"ack ack {"a": [1, 2]} "two words""#)
            try await session.waitForLine(#"↩ [{"a":[1,2]},"two words"]"#)
            // An incoming event.
            try await session.enter(#"emit echo "hi there""#)
            try await session.waitForLine(#"← echo ["hi there"]"#)

            // Left, then typing in the middle of the line.
            try await pane.type("emit ech 42")
            try await pane.press("Left", "Left", "Left")
            try await pane.type("o")
            try await session.waitForPrompt("emit echo 42")
            try await pane.press("Enter")
            try await session.waitForLine("← echo [42]")

            // Ctrl-A, End, Backspace.
            try await pane.type("cho 7")
            try await pane.press("C-a")
            try await pane.type("emit e")
            try await pane.press("End", "BSpace")
            try await pane.type("8")
            try await session.waitForPrompt("emit echo 8")
            try await pane.press("Enter")
            try await session.waitForLine("← echo [8]")

            // Up recalls the last line; a repeat is not stored twice.
            try await pane.press("Up")
            try await session.waitForPrompt("emit echo 8")
            try await pane.press("Enter")
            try await pane.waitForScreen("the second echo of 8") { screen in
                screen.split(separator: "\n").filter { $0 == "← echo [8]" }.count == 2
            }
            try await session.waitForPrompt("")
            try await pane.press("Up", "Up")
            try await session.waitForPrompt("emit echo 42")
            try await pane.press("C-u")
            try await session.waitForPrompt("")

            // Bad lines print one error line each and the session goes on.
            try await session.enter(#"emit echo {"a":}"#)
            try await session.waitForLine("error: emit: argument 1 is not valid JSON: unexpected character at column 16")
            try await session.enter("frobnicate")
            try await pane.waitForScreen("the unknown-command error") { $0.contains(#"error: unknown command "frobnicate""#) }
            try await session.waitForPrompt("")

            try await session.enter("status")
            try await session.waitForLine("connected:  yes")
            let screen = try await pane.screen()
            #expect(screen.contains("recovered:  no"))
            #expect(screen.contains("engine:     Engine.IO v4"))
            #expect(screen.split(separator: "\n").contains { $0.hasPrefix("transport:  polling") || $0.hasPrefix("transport:  websocket") })

            try await session.enter("quit")
            #expect(try await session.waitForExit() == 0)
            let history = try String(contentsOf: session.historyFile, encoding: .utf8)
            #expect(history.split(separator: "\n").map(String.init) == [
                #"ack ack {"a": [1, 2]} "two words""#, #"emit echo "hi there""#, "emit echo 42", "emit echo 8",
                #"emit echo {"a":}"#, "frobnicate", "status", "quit",
            ])
        }
    }

    @Test func messagesArrivingWhileTypingLeaveThePromptAndCursorInPlace() async throws {
        try await ConnectPane.with("messagesArrivingWhileTypingLeaveThePromptAndCursorInPlace") { session in
            let pane = session.pane
            try await pane.type(#"emit echo "partial"#)
            try await pane.press("Left", "Left", "Left")
            try await session.waitForPrompt(#"emit echo "partial"#)
            let promptWidth = "sio> ".count
            let typed = #"emit echo "partial"#.count

            // One message from the server: printed above, the prompt line drawn again below it.
            session.server.namespace("/").emit("news", "flash", ["n": 1])
            try await session.waitForLine(#"← news ["flash",{"n":1}]"#)
            let (row, text) = try await session.promptRow()
            #expect(text == #"sio> emit echo "partial"#)
            let rows = try await pane.visibleRows()
            #expect(rows[row - 1] == #"← news ["flash",{"n":1}]"#)
            let cursor = try await pane.cursor()
            #expect(cursor.x == promptWidth + typed - 3)
            #expect(cursor.y == row)

            // Typing goes on where the cursor was.
            try await pane.type("X")
            try await session.waitForPrompt(#"emit echo "partXial"#)

            // Escape sequences from the server are shown, not obeyed (this one would clear the screen).
            session.server.namespace("/").emit("evil\u{1B}[2J", "\u{9B}31m")
            try await session.waitForLine(#"← evil\u{1b}[2J ["\u{9b}31m"]"#)
            try await session.waitForPrompt(#"emit echo "partXial"#)

            // A burst: every line whole, in order, and the prompt intact at the bottom.
            let namespace = session.server.namespace("/")
            for index in 0..<300 { namespace.emit("tick", .number(Double(index))) }
            try await session.waitForLine("← tick [299]")
            try await session.waitForPrompt(#"emit echo "partXial"#)
            let lines = try await pane.screen().split(separator: "\n").map(String.init)
            let ticks = lines.filter { $0.contains("tick") }
            #expect(ticks == (0..<300).map { "← tick [\($0)]" })
            #expect(lines.filter { $0.contains("sio>") } == [#"sio> emit echo "partXial"#])
            let after = try await pane.cursor()
            let (burstRow, _) = try await session.promptRow()
            #expect(after.x == promptWidth + typed - 2)
            #expect(after.y == burstRow)

            // The line still works.
            try await pane.press("End")
            try await pane.type("\"")
            try await pane.press("Enter")
            try await session.waitForLine(#"← echo ["partXial"]"#)
        }
    }

    @Test func controlCControlDAndTheTerminalRestored() async throws {
        try await ConnectPane.with(
            "controlCControlDAndTheTerminalRestored",
            arguments: ["--ack-timeout", "60"],
            after: #"stty -a; echo "stty done""#
        ) { session in
            let pane = session.pane
            // Ctrl-C drops the line.
            try await pane.type("garbage")
            try await pane.press("C-c")
            try await session.waitForLine("sio> garbage^C")
            try await session.waitForPrompt("")

            // Ctrl-C stops waiting for an ack nobody sends.
            try await session.enter("ack silence 1")
            try await session.waitForLine("→ silence [1]")
            try await pane.press("C-c")
            try await session.waitForLine("error: ack: stopped waiting (ctrl-C)")
            try await session.waitForPrompt("")

            // Ctrl-D on an empty line ends the session; the terminal is as it was.
            try await pane.press("C-d")
            #expect(try await session.waitForExit() == 0)
            let screen = try await pane.waitForScreen("stty's output after sio exited") { $0.contains("stty done") }
            let settings = Set(screen.split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init))
            #expect(settings.contains("icanon") && !settings.contains("-icanon"))
            #expect(settings.contains("echo") && !settings.contains("-echo"))
            #expect(settings.contains("isig") && !settings.contains("-isig"))
        }
    }
}
