import Foundation
import SurveyEngine
import SurveyJourney

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

    /// The report of the run so far: counts, histograms and timeline as recorded up to now, the
    /// duration so far, and the thresholds judged on them (`passed` means nothing yet).
    func report(now: Date = Date()) -> RunReport {
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: startedAt, endedAt: now, elapsed: .seconds(max(0, now.timeIntervalSince(startedAt))), seed: seed,
            shard: shard, stoppedBy: coordinator.isInterrupted ? .signal : .completed, runID: runID)
        var report = RunReport.make(metrics: coordinator.recorder.snapshot(), facts: facts)
        report.timeline?.endNow()
        if let raw {
            let progress = raw.progress
            report.raw = RunReport.Raw(lines: progress.lines, dropped: progress.dropped)
        }
        return report
    }

    /// The run so far as the live page shows it.
    func view(now: Date = Date()) -> LivePage.View {
        view(of: report(now: now), final: false)
    }

    /// `report` as the live page shows it, with what the plan set out to do.
    func view(of report: RunReport, final: Bool) -> LivePage.View {
        var respondents: Int?
        if case .closed(let total) = plan.run.load { respondents = shard.count(of: total) }
        return LivePage.View(report: report, duration: plan.run.duration, respondents: respondents, final: final)
    }

    /// What the listener serves once the run has ended with `report`: the report the files get.
    func final(_ report: RunReport) -> MetricsListener.Final {
        let json: String?
        do throws(JSONEncodingError) {
            json = try ReportFormat.json.render(report)
        } catch {
            json = nil
        }
        return MetricsListener.Final(
            metrics: PrometheusReport.render(report), fragment: LivePage.fragment(view(of: report, final: true)),
            reportHTML: HTMLReport.render(report), reportJSON: json)
    }
}
