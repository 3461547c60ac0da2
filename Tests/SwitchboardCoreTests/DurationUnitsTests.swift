import NIOCore
import SwitchboardCore
import Testing

/// The one conversion of `Duration` to whole milliseconds and nanoseconds that the client, the
/// server and the PostgreSQL transport share: toward zero, and saturating instead of trapping on
/// a duration a caller made too large.
@Suite struct DurationUnitsTests {
    @Test(arguments: [
        (Duration.milliseconds(1_500), Int64(1_500)),
        (.microseconds(1_999), 1),
        (.microseconds(-1_999), -1),
        (.seconds(25), 25_000),
        (.zero, 0),
        (.seconds(Int64.max), .max),
        (.seconds(Int64.min), .min),
    ])
    func wholeMilliseconds(duration: Duration, expected: Int64) {
        #expect(duration.wholeMilliseconds == expected)
    }

    @Test(arguments: [
        (Duration.nanoseconds(1_234_567_891), Int64(1_234_567_891)),
        (.microseconds(-3), -3_000),
        (.seconds(9_223_372_036), 9_223_372_036_000_000_000),
        (.seconds(9_223_372_037), .max),
        (.seconds(-9_223_372_037), .min),
    ])
    func wholeNanoseconds(duration: Duration, expected: Int64) {
        #expect(duration.wholeNanoseconds == expected)
    }

    @Test func inSeconds() {
        #expect(Duration.milliseconds(2_250).inSeconds == 2.25)
        #expect(Duration.microseconds(-500).inSeconds == -0.0005)
    }

    /// NIO's own conversion, which the timers use, agrees where both are defined.
    @Test func timersAgree() {
        let delay = Duration.microseconds(12_345)
        #expect(TimeAmount(delay).nanoseconds == delay.wholeNanoseconds)
    }
}
