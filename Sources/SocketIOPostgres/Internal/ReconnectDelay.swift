/// How long the transport waits before connecting again after losing its listening
/// connection: a uniform draw from ``PostgresClusterTransport/Options/reconnectDelay``, so that
/// servers that lost the database together do not all come back at the same instant.
///
/// With socket.io's range, 1 to 3 s (`2000 ms × (0.5 + random)`):
///
/// | draw | delay   |
/// |------|---------|
/// | 0.0  | 1000 ms |
/// | 0.5  | 2000 ms |
/// | 1.0  | 3000 ms |
///
/// Every attempt draws anew; there is no growth, as in socket.io, since the database is one
/// server and a 1–3 s retry costs it nothing.
enum ReconnectDelay {
    /// The delay for `draw`, a number in `0 ... 1` (the caller's random source, so tests need
    /// none).
    static func delay(in range: ClosedRange<Duration>, draw: Double) -> Duration {
        let span = range.upperBound - range.lowerBound
        return range.lowerBound + span * min(max(draw, 0), 1)
    }
}
