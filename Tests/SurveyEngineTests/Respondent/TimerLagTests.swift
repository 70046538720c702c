import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// How late the tool's own timers end: each think, pace or retry wait counted once, from the
/// end it was set for, however many slices it was slept in.
@Suite struct TimerLagTests {
    @Test func aWaitThatEndsLateCountsItsLatenessOnceFromItsEnd() async {
        // Every sleep ends 2 ms after it was asked to. A think of 120 ms is slept in slices of at
        // most 50 ms, each asking for what is left until its end: 50 (52 ms gone), 50 (104 ms),
        // then 16 — it ends at 122 ms, 2 ms late, not 6.
        let clock = VirtualClock(oversleep: 2_000_000)
        let recorder = MetricsRecorder(lanes: 1)
        let think = ThinkTime.uniform(DurationRange(fixed: .milliseconds(120)))
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        let result = await respondent.run(context(ScriptedTransport(survey()), clock: clock, recorder: recorder, think: think))
        #expect(result.submitted == 3)
        let lag = recorder.snapshot().timerLag
        #expect(lag.count == 3, "one per think before each of the 3 submits")
        #expect(lag.min == 2_000_000 && lag.max == 2_000_000)
        #expect(clock.sleeps == Array(repeating: [50_000_000, 50_000_000, 16_000_000], count: 3).flatMap { $0 })
        #expect(recorder.snapshot().arrivalLag.count == 0, "no arrival in the closed model")
    }

    @Test func aWaitCutByAnInterruptionIsNotCounted() async {
        // The signal comes during the first slice of the first think: that wait never ends.
        let interruption = Mutex<OnceFlag?>(nil)
        let clock = VirtualClock(onSleep: { interruption.withLock { $0 }?.raise() })
        let recorder = MetricsRecorder(lanes: 1)
        let context = context(
            ScriptedTransport(survey()), clock: clock, recorder: recorder, think: .uniform(DurationRange(fixed: .milliseconds(120))))
        interruption.withLock { $0 = context.interruption }
        var respondent = Respondent(index: 0, seed: 1, lane: 0)
        _ = await respondent.run(context)
        #expect(clock.sleeps == [50_000_000], "the think began, and was cut in its first slice")
        #expect(recorder.snapshot().timerLag.count == 0)
    }
}
