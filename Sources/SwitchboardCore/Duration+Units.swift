extension Duration {
    /// The whole nanoseconds, toward zero, saturating (for timers and histograms that count
    /// nanoseconds).
    package var wholeNanoseconds: Int64 {
        whole(perSecond: 1_000_000_000)
    }

    /// The whole milliseconds, toward zero, saturating: the unit of Engine.IO's handshake, of
    /// socket.io's timeouts on the wire, and of the intervals written into SQL.
    package var wholeMilliseconds: Int64 {
        whole(perSecond: 1_000)
    }

    /// The duration in seconds, as a `Double` (for figures and logs).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole units of `1 / perSecond` s (a divisor of 10^18), saturating at `Int64`'s bounds.
    private func whole(perSecond: Int64) -> Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: perSecond)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / (1_000_000_000_000_000_000 / perSecond))
        guard !sumOverflow else { return seconds < 0 ? .min : .max }
        return sum
    }
}
