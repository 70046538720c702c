import Testing

@testable import SurveyJourney
@testable import SurveyMetrics

/// What the recorder counts, by its calls.
@Suite struct MetricsRecorderTests {
    /// A successful attempt that ends its call, counted under one lock, counts as the attempt and
    /// the call's end counted apart.
    @Test func aSuccessCountsAsItsAttemptAndItsCallsEnd() {
        let together = MetricsRecorder(lanes: 2)
        let apart = MetricsRecorder(lanes: 2)
        for (number, tries, denied) in [(1, 1, 0), (2, 3, 1), (3, 2, 0)] {
            let record = AttemptRecord(
                step: .submit, attempt: tries, outcome: .status(200), succeeded: true, serviceTime: .milliseconds(number),
                start: UInt64(number) * 1_000_000_000)
            together.recordSuccess(record, retriesDenied: denied, lane: number)
            apart.record(record, lane: number)
            apart.endCall(.submit, succeeded: true, attempts: tries, retriesDenied: denied, lane: number)
        }
        let (a, b) = (together.snapshot(), apart.snapshot())
        #expect(a == b)
        #expect(a[.submit].calls == 3 && a[.submit].succeeded == 3 && a[.submit].firstTrySucceeded == 1)
        #expect(a[.submit].retriesDenied == 1 && a[.submit].attempts == 3)
    }
}
