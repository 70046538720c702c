import Testing

@testable import SurveyWire

/// A duration in whole nanoseconds, as every latency, timeout and think time is counted: the
/// same on either side of the 64-bit fast path (about 9.2 s), truncated toward zero, saturated.
@Suite struct DurationNanosecondsTests {
    @Test(arguments: [
        (Duration.zero, Int64(0)), (.nanoseconds(1), 1), (.milliseconds(1500), 1_500_000_000), (.seconds(9), 9_000_000_000),
        (.seconds(10), 10_000_000_000), (.seconds(86_400 * 365), 31_536_000_000_000_000), (.nanoseconds(-5), -5),
        (.seconds(-20), -20_000_000_000), (.seconds(Int64.max), .max), (.seconds(Int64.min), .min),
        (.seconds(9_223_372_036) + .nanoseconds(854_775_807), .max), (.seconds(9_223_372_036) + .nanoseconds(854_775_806), .max - 1),
    ])
    func wholeNanosecondsSaturating(_ duration: Duration, _ expected: Int64) {
        #expect(duration.nanoseconds == expected)
    }

    @Test func partsOfANanosecondAreTruncatedTowardZero() {
        let third = Duration.nanoseconds(10) / 3
        #expect(third.nanoseconds == 3)
        #expect((Duration.zero - third).nanoseconds == -3)
        let longThird = Duration.seconds(30) + third
        #expect(longThird.nanoseconds == 30_000_000_003)
    }

    @Test func clampedNanosecondsAreNeverNegative() {
        #expect(Duration.nanoseconds(-1).clampedNanoseconds == 0)
        #expect(Duration.seconds(12).clampedNanoseconds == 12_000_000_000)
    }
}
