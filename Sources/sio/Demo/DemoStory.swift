import Foundation
import Harness

/// Prints the demo as a story: a heading per chapter, a line per step, colours when the output
/// is a terminal (and `NO_COLOR` is not set).
struct DemoStory: Sendable {
    let colour: Bool
    /// Prints nothing (the soak harness runs the scenes many times).
    let silent: Bool

    init(silent: Bool = false) {
        self.silent = silent
        colour = !silent && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    func chapter(_ title: String) {
        say("\n" + paint("▸ " + title, "1;36"))
    }

    func step(_ text: String) {
        say("  " + paint("✔", "32") + " " + text)
    }

    func detail(_ text: String) {
        say("    " + paint(text, "2"))
    }

    func failure(_ text: String) {
        guard !silent else { return }
        StandardOutput.errorLine("  " + paint("✘ " + text, "31"))
    }

    func banner(_ text: String) {
        say(paint(text, "1"))
    }

    private func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1b}[\(code)m\(text)\u{1b}[0m" : text
    }

    private func say(_ text: String) {
        guard !silent else { return }
        StandardOutput.line(text)
    }
}

/// A demo step that did not happen: the demo stops with this message and exits non-zero.
struct DemoFailure: Error, CustomStringConvertible {
    let description: String
}

/// How long one demo step may take: sized for a loaded 2-core machine (beside two CPU hogs a
/// step that takes milliseconds alone has taken seconds), and still short of a hang.
let demoStepSeconds: Double = 30

/// Runs `body`, failing the demo — naming `what` — if it takes longer than `seconds` (at once,
/// even if the body ignores cancellation: see `withDeadline`). Every wait of the demo runs in
/// one of these, so a step that does not happen says which, instead of going silent.
func within<T: Sendable>(_ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await within(demoStepSeconds, what, body)
}

/// ``within(_:_:)`` with a deadline of its own.
func within<T: Sendable>(_ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let step = ActiveSteps.begin(what)
    defer { ActiveSteps.end(step) }
    return try await withDeadline(.milliseconds(Int64(seconds * 1000)), onDeadline: {
        DemoFailure(description: "\(what) did not happen within \(Int(seconds)) s")
    }, body)
}
