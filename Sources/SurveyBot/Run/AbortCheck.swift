/// The thresholds of a plan that say `abort: true`, judged while the run goes on: once one
/// fails on the figures so far, after its `after`, the run is lost and ends early (k6's
/// `abortOnFail`).
struct AbortCheck: Sendable {
    /// The plan's thresholds with `abort`, in plan order.
    let thresholds: [Threshold]

    init(_ thresholds: [Threshold]) {
        self.thresholds = thresholds.filter(\.abort)
    }

    /// The first threshold that fails on `figures`, `elapsed` into the run; nil when none does.
    /// A threshold is judged only once its `after` has passed, and only on something measured:
    /// with no samples yet (no submit answered so far) it has not failed — at the end of the
    /// run, with none still, it fails like any threshold.
    func firstFailing(_ figures: RunFigures, elapsed: Duration) -> ThresholdResult? {
        for threshold in thresholds where elapsed >= threshold.abortAfter {
            let result = threshold.evaluate(figures)
            if result.actual != nil && !result.passed { return result }
        }
        return nil
    }

    /// Judges the thresholds every `interval` on the figures so far until one fails, then calls
    /// `end` with it once and returns it; returns nil when there is nothing to judge or the task
    /// is cancelled (the run ended by itself). Time and figures are injected, so tests run it on
    /// virtual time.
    func watch(
        every interval: Duration, elapsed: @Sendable () -> Duration, figures: @Sendable () -> RunFigures,
        sleep: @Sendable (Duration) async -> Void, end: @Sendable (ThresholdResult) -> Void
    ) async -> ThresholdResult? {
        guard !thresholds.isEmpty else { return nil }
        while !Task.isCancelled {
            await sleep(interval)
            if Task.isCancelled { return nil }
            if let failing = firstFailing(figures(), elapsed: elapsed()) {
                end(failing)
                return failing
            }
        }
        return nil
    }
}
