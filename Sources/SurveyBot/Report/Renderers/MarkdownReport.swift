import SurveyEngine

/// The report for people: a verdict, a table of the steps, respondents and answers, error
/// kinds, thresholds, a latency chart and a throughput sparkline. GitHub-flavoured Markdown.
enum MarkdownReport: ReportRenderer {
    static func render(_ report: RunReport) -> String {
        let figures = RunFigures(report)
        var lines: [String] = []
        lines.append(
            "# survey-bot: \(MarkdownText.text(report.name))" + (report.missingShardsText.map { " — ⚠️ PARTIAL merge, \($0)" } ?? ""))
        lines.append("")
        lines.append(
            "**\(verdict(report))** — \(MarkdownText.text(report.target)), \(MarkdownText.text(report.startedAt)), \(Readable.number(report.durationS)) s"
                + ReportWording.stopped(report))
        if let shard = report.shard, shard.count > 1 { lines += ["", "Shard \(shard) of a larger run."] }
        lines.append("")
        // Which attempts p50 … max cover, where the columns begin.
        let latency = ReportWording.latencyHeading(coversFailures: figures.survey.latencyCoversFailures)
        lines.append("| step | calls | attempts | success | first try | retries | \(latency): p50 | p95 | p99 | max |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in figures.steps {
            guard let calls = figures.perStep[name] else { continue }
            let latency = calls.latency
            lines.append(
                "| \(MarkdownText.text(name)) | \(calls.calls) | \(calls.attempts) | \(Readable.percent(calls.successRate)) "
                    + "| \(Readable.percent(calls.firstTrySuccessRate)) | \(calls.retries) | \(Readable.ms(latency?.p50)) "
                    + "| \(Readable.ms(latency?.p95)) | \(Readable.ms(latency?.p99)) | \(Readable.ms(latency?.max)) |")
        }
        lines.append("")
        lines.append("**Respondents:** \(MarkdownText.text(ReportWording.respondents(report))).")
        lines.append("")
        lines.append("**Answers:** \(MarkdownText.text(ReportWording.answers(report))).")
        lines.append("")
        if let local = report.localResource {
            lines.append("**Not sent:** \(MarkdownText.text(ReportWording.localResource(local))).")
            lines.append("")
        }
        if let raw = ReportWording.raw(report) {
            lines.append("**Raw attempts:** \(MarkdownText.text(raw)).")
            lines.append("")
        }
        if let lag = ReportWording.lag(report) {
            lines.append("**Lag** (survey-bot's own): \(MarkdownText.text(lag)).")
            lines.append("")
        }
        if let warning = ReportWording.lagWarning(report) {
            lines.append("> **Warning:** \(MarkdownText.text(warning)).")
            lines.append("")
        }
        if let notRetried = ReportWording.notRetried(report) {
            lines.append("**Not retried:** \(MarkdownText.text(notRetried)).")
            lines.append("")
        }
        lines.append("**Throughput:** \(Readable.number(report.throughput.attemptsPerS)) attempts/s")
        // One line of attempts per second: the timeline's, below, when there is one.
        if report.timeline?.survey.isEmpty ?? true, let sparkline = perSecondSparkline(report) {
            lines += ["", "`\(sparkline)` attempts per second"]
        }
        if let connections = ReportWording.connections(figures) {
            lines += ["", "**Connections:** \(MarkdownText.text(connections))."]
        }
        if let tooShort = ReportWording.tooShortToChart([report], code: { MarkdownText.code($0) }) {
            lines += ["", "## Over time", "", tooShort.prefix(1).uppercased() + tooShort.dropFirst() + "."]
        } else if let timeline = report.timeline, !timeline.survey.isEmpty {
            lines += ["", "## Over time", ""] + overTime(report, timeline: timeline, steps: figures.steps)
        }
        let errors = ReportWording.errors(report)
        if !errors.isEmpty {
            // A reason column only where a kind has more to say than its name (a TLS failure, a server's refusal).
            let withReasons = errors.contains { $0.sample != nil }
            lines += ["", "## Errors", ""]
            lines.append(withReasons ? "| step | kind | attempts | first reason |" : "| step | kind | attempts |")
            lines.append(withReasons ? "|---|---|---:|---|" : "|---|---|---:|")
            for error in errors {
                let reason = withReasons ? " \(error.sample.map(MarkdownText.text) ?? "") |" : ""
                lines.append("| \(MarkdownText.text(error.step)) | \(MarkdownText.text(error.kind)) | \(error.count) |" + reason)
            }
            if let timeToFail = ReportWording.timeToFail(figures) {
                lines += ["", "**Time to fail** (failed attempts, apart from the latency): \(MarkdownText.text(timeToFail))."]
            }
        }
        lines += questions(report)
        if !report.thresholds.isEmpty {
            lines += ["", "## Thresholds", "", "| threshold | actual | result |", "|---|---:|---|"]
            for result in report.thresholds {
                let implicit = result.threshold.implicit ? " (implicit)" : result.threshold.abort ? " (abort)" : ""
                lines.append(
                    "| \(MarkdownText.code(result.threshold.description, inTable: true))\(implicit) | \(Readable.actual(result)) | \(result.passed ? "✅ passed" : "❌ failed") |"
                )
            }
        }
        for name in figures.steps {
            guard let step = report.stepReports[name], step.attempts > 0, let histogram = step.correctedHistogram.histogram,
                histogram.count > 0
            else {
                continue
            }
            let scope = step.latencyCoversFailures ? "every attempt, failed ones too" : "succeeded attempts"
            lines += ["", "## Latency of \(MarkdownText.text(name)) (\(scope))", "", "```"]
            lines.append(contentsOf: LatencyChart.lines(histogram))
            lines.append("```")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What the survey saw, question by question: a table, then the questions the plan answers
    /// that no respondent was shown. Nothing for a report without the section.
    static func questions(_ report: RunReport) -> [String] {
        guard let questions = report.questions else { return [] }
        var lines = ["", "## Questions", ""]
        if questions.byID.isEmpty, questions.beyondLimit == nil {
            lines.append("No respondent was shown a question.")
        } else {
            let columns = ReportWording.questionColumns
            lines.append("| " + columns.joined(separator: " | ") + " |")
            lines.append("|---|" + String(repeating: "---:|", count: columns.count - 2) + "---|")
            for row in ReportWording.questionRows(questions) {
                lines.append("| " + row.map { MarkdownText.text($0) }.joined(separator: " | ") + " |")
            }
            lines += ["", "Refused answers (a 4xx or `rejected` of a submit per question) are counted in unanswered too."]
        }
        if let unreached = ReportWording.unreached(questions) {
            lines += ["", "**Never shown** (the plan answers them; no respondent reached them): \(MarkdownText.text(unreached))."]
        }
        return lines
    }

    /// The most intervals a Markdown chart shows: Mermaid labels every one of them, and no
    /// more fit side by side. A longer timeline is shown coarser, neighbours merged exactly.
    static let maxChartIntervals = 20

    /// Mermaid `xychart-beta` charts of the timeline, which GitHub draws in job summaries and
    /// comments — attempts per second, and each step's p95 — each after a text fallback (a
    /// sparkline) that every viewer shows, both of the same values: one bar per interval, each
    /// rated over the part of it the run covered. Mermaid spreads a chart's values evenly
    /// whatever the axis says, so the x axis is a list of the intervals, each labelled with the
    /// middle of that part, in seconds from the run's start. An interval without a succeeded
    /// attempt has no p95: no bar, and a blank in the sparkline.
    static func overTime(_ report: RunReport, timeline: RunReport.TimelineRecord, steps: [String]) -> [String] {
        let timeline = coarsened(timeline, to: maxChartIntervals)
        let covered = timeline.covered(startedAt: report.startedAt, endedAt: report.endedAt)
        let decimals = timeline.intervalS >= 10 ? 0 : timeline.intervalS >= 1 ? 1 : timeline.intervalS >= 0.1 ? 2 : 3
        let labels = covered.map { "\"\(Readable.number(Double($0.middle.formattedDecimals(decimals)) ?? $0.middle))\"" }
        func chart(_ title: String, unit: String, _ values: [Double?]) -> [String] {
            // Readable's precision, not a fixed 0.1: a fast step's p95 of 0.045 ms is not 0.
            let numbers = values.map { $0.map(Readable.number) ?? "0" }.joined(separator: ", ")
            return [
                "```mermaid", "xychart-beta", "    title \"\(title)\"",
                "    x-axis \"seconds from the run's start (middle of each interval)\" [\(labels.joined(separator: ", "))]",
                "    y-axis \"\(unit)\"", "    bar [\(numbers)]", "```",
            ]
        }
        let every = "every \(Readable.number(timeline.intervalS)) s"
        let attempts = covered.indices.map { position in
            covered[position].rate(timeline.stepPoints.values.reduce(0) { $0 &+ (position < $1.count ? $1[position].attempts : 0) })
        }
        let peak = Readable.number((attempts.compactMap { $0 }.max() ?? 0).rounded())
        var lines = ["`\(Readable.sparkline(attempts))` attempts per second, \(every) (peak \(peak))", ""]
        lines += chart("Attempts per second", unit: "attempts/s", attempts)
        for step in steps {
            guard let points = timeline.stepPoints[step], points.contains(where: { $0.p95 != nil }) else { continue }
            let p95 = points.map(\.p95)
            let highest = Readable.ms(p95.compactMap { $0 }.max() ?? 0)
            lines += ["", "`\(Readable.sparkline(p95))` p95 of \(MarkdownText.text(step)), \(every) (highest \(highest))", ""]
            lines += chart("p95 of \(step) (ms)", unit: "ms", p95)
        }
        return lines
    }

    /// `timeline` with neighbouring intervals merged (exactly: counts add, histograms merge)
    /// until it has at most `count`; as it is when it has no more, or is not on its grid.
    static func coarsened(_ timeline: RunReport.TimelineRecord, to count: Int) -> RunReport.TimelineRecord {
        guard timeline.survey.count > count, var grid = timeline.grid else { return timeline }
        while grid.bins.count > count { grid.coarsen() }
        var record = grid.record
        // The run's span, when the report did not say it, is still read from its times.
        if timeline.runStartS == nil { (record.runStartS, record.runEndS) = (nil, nil) }
        return record
    }

    /// Attempts per second of a report without a timeline: its `throughput.timeline`, each
    /// second rated over the part of it the run covered (the last one is shorter); nil when
    /// it has none.
    static func perSecondSparkline(_ report: RunReport) -> String? {
        let counts = report.throughput.timeline
        guard !counts.isEmpty else { return nil }
        let values = counts.indices.map { second in
            CoveredInterval(from: Double(second), to: min(Double(second + 1), max(Double(second), report.durationS))).rate(counts[second])
        }
        return Readable.sparkline(values)
    }

    /// The verdict with its mark, a threshold's text as code: `❌ failed: stopped by
    /// \`submit.p95 < 300ms\` (abort)`.
    static func verdict(_ report: RunReport) -> String {
        ReportWording.verdict(report, marks: .emoji) { MarkdownText.code($0) }
    }
}
