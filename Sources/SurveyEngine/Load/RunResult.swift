import SurveyMetrics

/// What a run produced.
public struct RunResult: Sendable {
    /// Every attempt and respondent, counted.
    public var metrics: RunMetrics
    /// What ended the run: `.signal` whenever `interrupt()` was called, even during the grace
    /// after the duration; `metrics` then count a partial run.
    public var stoppedBy: StopCause
    /// From the start of `run()` to the end of the last respondent, on the run's clock.
    public var elapsed: Duration
}
