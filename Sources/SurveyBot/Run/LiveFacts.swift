import Foundation
import SurveyEngine

/// What a run still under way knows of itself, for `--metrics-listen`: its plan and identity,
/// and where to read its figures so far.
struct LiveFacts: Sendable {
    let plan: Plan
    let startedAt: Date
    let seed: UInt64
    let shard: Shard
    let runID: String
    let coordinator: RunCoordinator
    let raw: RawAttemptWriter?

    /// The report of the run so far, without a verdict: counts and histograms as recorded up
    /// to now, the duration so far.
    func report(now: Date = Date()) -> RunReport {
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: startedAt, endedAt: now, elapsed: .seconds(max(0, now.timeIntervalSince(startedAt))), seed: seed,
            shard: shard, stoppedBy: coordinator.isInterrupted ? .signal : .completed, runID: runID)
        var report = RunReport.make(metrics: coordinator.recorder.snapshot(), facts: facts)
        if let raw {
            let progress = raw.progress
            report.raw = RunReport.Raw(lines: progress.lines, dropped: progress.dropped)
        }
        return report
    }

    /// The figures so far as Prometheus metrics.
    func render() -> String {
        PrometheusReport.render(report(), live: true)
    }
}
