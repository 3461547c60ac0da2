import Foundation
import NIOConcurrencyHelpers

/// A one-line progress bar on standard error, redrawn in place; silent when stderr is not a terminal.
final class ProgressBar: Sendable {
    private let label: String
    private let total: Int
    private let enabled: Bool
    private let state = NIOLockedValueBox((done: 0, lastDraw: ContinuousClock.Instant.now, drawn: false))

    init(label: String, total: Int) {
        self.label = label
        self.total = max(total, 1)
        self.enabled = isatty(STDERR_FILENO) == 1
    }

    /// Records `count` more units done; redraws at most every 50 ms.
    func advance(by count: Int = 1) {
        guard enabled else { return }
        let draw: Int? = state.withLockedValue { state in
            state.done += count
            let now = ContinuousClock.Instant.now
            guard state.done >= total || now - state.lastDraw > .milliseconds(50) else { return nil }
            state.lastDraw = now
            state.drawn = true
            return state.done
        }
        if let done = draw { render(done) }
    }

    /// Ends the line.
    func finish() {
        guard enabled, state.withLockedValue({ $0.drawn }) else { return }
        StandardOutput.errorLine("")
    }

    private func render(_ done: Int) {
        let fraction = min(Double(done) / Double(total), 1)
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(label) \(bar) \(Int(fraction * 100))% \(min(done, total))/\(total)"
        StandardOutput.write(line, to: STDERR_FILENO)
    }
}
