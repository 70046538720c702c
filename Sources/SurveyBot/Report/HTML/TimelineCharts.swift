import SurveyEngine
import SurveyJourney

/// The charts of the run over time, drawn from reports' timelines: for one report, or for two
/// overlaid (a diff: the base dashed, the new solid, in the same colours).
struct TimelineCharts {
    /// A run to draw: its report, how its series are named (nil: plainly), whether dashed.
    struct Run {
        var report: RunReport
        var label: String?
        var dashed: Bool
    }

    var runs: [Run]

    private func name(_ text: String, _ run: Run) -> String {
        run.label.map { "\($0) \(text)" } ?? text
    }

    /// One series per run of `value` at each interval (nil: no value there), drawn over the part
    /// of the interval the run covered, in seconds from the run's start; `value` gets the
    /// timeline, the interval's position, and the interval as covered, whose `rate` turns a
    /// count into a rate per second over that part.
    private func series(
        _ text: String, colour: Int, value: (RunReport.TimelineRecord, Int, CoveredInterval) -> Double?
    ) -> [ChartSeries] {
        runs.compactMap { run in
            guard let timeline = run.report.timeline else { return nil }
            let covered = timeline.covered(startedAt: run.report.startedAt, endedAt: run.report.endedAt)
            let points = covered.indices.map { position in
                let part = covered[position]
                return ChartPoint(from: part.from, to: part.to, y: part.seconds > 0 ? value(timeline, position, part) : nil)
            }
            return ChartSeries(name: name(text, run), colour: colour, dashed: run.dashed, points: points)
        }
    }

    /// The sum over steps of `count` at an interval, per second of the part of it the run covered.
    private static func rate(
        _ timeline: RunReport.TimelineRecord, _ position: Int, _ part: CoveredInterval,
        _ count: (RunReport.TimelineRecord.StepPoint) -> Int
    ) -> Double? {
        let total = timeline.stepPoints.values.reduce(0) { sum, points in
            position < points.count ? sum &+ count(points[position]) : sum
        }
        return part.rate(total)
    }

    /// Where the longest run ended, in seconds from its start: every chart over time spans it,
    /// and none goes past it.
    private var end: Double? {
        runs.compactMap { run in
            run.report.timeline.map { timeline in
                timeline.covered(startedAt: run.report.startedAt, endedAt: run.report.endedAt).last?.to ?? 0
            }
        }.filter(\.isFinite).max()
    }

    /// The steps with attempts in any run, in the journey's order.
    private var steps: [String] {
        RunReport.stepNames(runs.map(\.report)).filter { name in runs.contains { ($0.report.stepReports[name]?.attempts ?? 0) > 0 } }
    }

    /// Whether no run has a succeeded attempt, and so no latency, though some sent attempts.
    var noLatency: Bool {
        !steps.isEmpty && runs.allSatisfy { run in run.report.stepReports.values.allSatisfy { $0.correctedHistogram.count == 0 } }
    }

    /// Which attempts the latency charts cover: `succeeded attempts`, and the runs of reports
    /// of a version that counted failed attempts too.
    private var latencyScope: String {
        let covering = runs.filter { $0.report.stepReports.values.contains(where: \.latencyCoversFailures) }
        if covering.isEmpty { return "succeeded attempts" }
        if covering.count == runs.count { return "every attempt, failed ones too" }
        return "succeeded attempts; " + covering.map { $0.label.map { "\($0)'s" } ?? "its" }.joined(separator: ", ") + " failed ones too"
    }

    /// Whether any run has a timeline to draw.
    var hasTimeline: Bool { runs.contains { !($0.report.timeline?.survey.isEmpty ?? true) } }

    /// Why there is nothing to chart over time though there is a timeline: every run lasted
    /// less than two intervals, whose charts would be a dot each. HTML; nil when some run has
    /// more.
    var tooShort: String? {
        ReportWording.tooShortToChart(runs.map(\.report)) { "<code>\($0)</code>" }
    }

    /// Requests per second by outcome.
    var attempts: LineChart {
        LineChart(
            title: "Attempts per second, by outcome", yUnit: "/s",
            series: series("succeeded", colour: 2) { Self.rate($0, $1, $2, \.succeeded) }
                + series("failed", colour: 1) { Self.rate($0, $1, $2, \.failed) }, xEnd: end,
            format: { Readable.perSecond(($0 * 10).rounded() / 10) })
    }

    /// Failed attempts per second by kind; nil when nothing failed.
    var errors: LineChart? {
        var totals: [String: Int] = [:]
        for run in runs {
            for points in run.report.timeline?.stepPoints.values.map({ $0 }) ?? [] {
                for point in points { totals.merge(point.errors, uniquingKeysWith: +) }
            }
        }
        let kinds = totals.filter { $0.value > 0 }.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(6).map(\.key)
        guard !kinds.isEmpty else { return nil }
        let colours = [1, 3, 4, 5, 6, 7]
        let lines = kinds.enumerated().flatMap { index, kind in
            series(kind, colour: colours[index]) { timeline, position, part in
                Self.rate(timeline, position, part) { $0.errors[kind] ?? 0 }
            }
        }
        return LineChart(
            title: "Failed attempts per second, by kind", yUnit: "/s", series: lines, xEnd: end,
            format: { Readable.perSecond(($0 * 10).rounded() / 10) })
    }

    /// p50, p95 and p99 over time, one chart per step.
    var latency: [(step: String, chart: LineChart)] {
        steps.map { step in
            let lines = [("p50", 0, \RunReport.TimelineRecord.StepPoint.p50), ("p95", 3, \.p95), ("p99", 1, \.p99)].flatMap {
                metric, colour, path in
                series(metric, colour: colour) { timeline, position, _ in
                    guard let points = timeline.stepPoints[step], position < points.count else { return nil }
                    return points[position][keyPath: path]
                }
            }
            return (
                step,
                LineChart(
                    title: "Latency of \(step) over time (\(latencyScope))", yUnit: "ms", series: lines, xEnd: end, format: Readable.ms)
            )
        }
    }

    /// The whole run's latency distribution per step, on a log scale of milliseconds.
    var distribution: LineChart {
        var lines: [ChartSeries] = []
        let steps = steps
        for step in steps {
            for run in runs {
                guard let histogram = run.report.stepReports[step]?.correctedHistogram.histogram else { continue }
                let points = LineChart.distribution(histogram)
                guard !points.isEmpty else { continue }
                lines.append(
                    ChartSeries(name: name(step, run), colour: Self.colour(of: step, among: steps), dashed: run.dashed, points: points))
            }
        }
        return LineChart(
            title: "Latency distribution (share of \(latencyScope), log scale)", yUnit: "%", series: lines, logX: true, xUnit: "ms",
            format: { "\(Readable.number(($0 * 10).rounded() / 10))%" })
    }

    /// The colours of steps that share a chart: the default journey's steps, in its order, then
    /// the other steps of the chart, in theirs.
    private static let stepColours = [4, 0, 3, 6, 2, 5, 7, 1]

    /// A step's own colour wherever steps share a chart (`steps`, the chart's, in order): each
    /// default journey step's is the same in every report, whichever steps it has.
    static func colour(of step: String, among steps: [String]) -> Int {
        let order = Journey.defaultSteps.map(\.name) + steps.filter { name in !Journey.defaultSteps.contains { $0.name == name } }
        return stepColours[(order.firstIndex(of: step) ?? 0) % stepColours.count]
    }

    /// Retries per second, by step.
    var retries: LineChart {
        let steps = steps
        let lines = steps.flatMap { step in
            series("\(step) retries", colour: Self.colour(of: step, among: steps)) { timeline, position, part in
                guard let points = timeline.stepPoints[step], position < points.count else { return nil }
                return part.rate(points[position].retries)
            }
        }
        return LineChart(
            title: "Retries per second", yUnit: "/s", series: lines, xEnd: end,
            format: { Readable.perSecond(($0 * 10).rounded() / 10) })
    }

    /// Respondents under way, and arrivals dropped per second when there were any.
    var respondents: LineChart {
        // The mean over the part of the interval the run covered, like the rates: the timeline's
        // is over the whole interval.
        var lines = series("respondents active", colour: 5) { timeline, position, part in
            part.rate(timeline.survey[position].respondentsActive * timeline.intervalS)
        }
        if runs.contains(where: { $0.report.respondents.dropped > 0 }) {
            lines += series("dropped /s", colour: 1) { timeline, position, part in
                part.rate(timeline.survey[position].dropped)
            }
        }
        return LineChart(title: "Respondents active", yUnit: "", series: lines, xEnd: end)
    }

    /// survey-bot's own lateness (`lag`), p99 per interval, and the limit it is held to; nil
    /// when no run set a time for anything.
    var lag: LineChart? {
        let limits = runs.compactMap(\.report.lag?.limitMs)
        guard let limit = limits.max() else { return nil }
        var lines = series("survey-bot's lag p99", colour: 6) { timeline, position, _ in timeline.survey[position].lagP99 }
        // One line for the limit, across the longest run: a diff's runs share one scale.
        if let end {
            lines.append(ChartSeries(name: "limit", colour: 1, dashed: true, points: [ChartPoint(from: 0, to: end, y: limit)]))
        }
        return LineChart(
            title: "survey-bot's own lag (p99): how late it started arrivals and ended waits", yUnit: "ms", series: lines, xEnd: end,
            format: { Readable.ms($0) })
    }
}
