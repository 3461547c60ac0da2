/// socket.io's reconnection backoff (`contrib/backo2.ts`), as a value type.
///
/// `base = min × 2^attempt`; one random draw `r` in `0..<1` sets both the size of the deviation
/// (`⌊r × jitter × base⌋`) and its sign (subtract when `⌊r × 10⌋` is even); the result is capped
/// at `max` and truncated to whole milliseconds. With the defaults (1 s, 5 s, 0.5):
///
/// | retry | base | possible delays |
/// |---|---|---|
/// | 1st | 1000 ms | 551 – 1499 ms |
/// | 2nd | 2000 ms | 1101 – 2999 ms |
/// | 3rd | 4000 ms | 2201 – 5000 ms |
/// | 4th | 8000 ms, capped | 4401 – 5000 ms |
/// | 5th+ | 5000 ms | 5000 ms |
struct Backoff: Sendable, Equatable {
    let minimum: Duration
    let maximum: Duration
    let jitter: Double
    /// Delays handed out since the last reset.
    private(set) var attempts = 0

    init(minimum: Duration, maximum: Duration, jitter: Double) {
        self.minimum = minimum
        self.maximum = max(maximum, minimum)
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The next delay, for a random draw `random` in `0..<1`.
    mutating func nextDelay(random: Double) -> Duration {
        let minimumMS = Double(minimum.wholeMilliseconds)
        let maximumMS = Double(maximum.wholeMilliseconds)
        // 2^attempt grows past any cap quickly; stop growing it once it cannot matter.
        let exponent = Double(min(attempts, 62))
        attempts += 1
        var delay = minimumMS * pow2(exponent)
        if jitter > 0 {
            // A draw that is not a number (a `jitter` closure's) counts as 0.
            let r = random.isNaN ? 0 : min(max(random, 0), 0.999_999_999)
            let deviation = (r * jitter * delay).rounded(.down)
            delay = Int((r * 10).rounded(.down)) % 2 == 0 ? delay - deviation : delay + deviation
        }
        // Below 2^63 ms: a maximum that saturated `wholeMilliseconds` is exactly 2^63 as a Double.
        return .milliseconds(Int64(min(delay, maximumMS, 9.2e18).rounded(.towardZero)))
    }

    /// Starts again from the first delay (after a successful connection).
    mutating func reset() {
        attempts = 0
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        var remaining = Int(exponent)
        while remaining > 0 {
            value *= 2
            remaining -= 1
        }
        return value
    }
}
