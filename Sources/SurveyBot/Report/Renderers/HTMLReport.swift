import Foundation
import SurveyEngine

/// The report as one self-contained HTML page: the verdict and thresholds first, then the
/// charts of the run over time (SVG), then the tables of the Markdown report. No script, no
/// network: it opens offline from a CI artifact.
enum HTMLReport: ReportRenderer {
    static func render(_ report: RunReport) -> String {
        HTMLPage.document(
            title: "survey-bot: \(report.name)", body: body(report),
            notice: report.missingShardsText.map { "survey-bot: \(report.name) — PARTIAL merge, \($0)" })
    }

    static func body(_ report: RunReport) -> String {
        var html: [String] = []
        html.append("<h1>survey-bot: \(XMLText.escape(report.name))</h1>")
        if let missing = report.missingShardsText {
            html.append("<p class=\"verdict warn\">PARTIAL merge, \(XMLText.escape(missing))</p>")
        }
        let stopped = ReportWording.stopped(report)
        html.append(
            "<p class=\"verdict \(verdictClass(report))\">\(XMLText.escape(ReportWording.verdict(report, marks: .plain)))</p>"
                + "<p class=\"meta\">\(XMLText.escape(report.target)) · started \(XMLText.escape(report.startedAt)) · "
                + "\(XMLText.escape(Readable.number(report.durationS))) s\(stopped)"
                + (report.shard.map { $0.count > 1 ? " · shard \(XMLText.escape($0.description)) of a larger run" : "" } ?? "")
                + "</p>")
        if let local = report.localResource {
            html.append("<p><strong>Not sent:</strong> \(XMLText.escape(ReportWording.localResource(local))).</p>")
        }
        if let warning = ReportWording.lagWarning(report) {
            html.append("<p class=\"verdict warn\">Warning: \(XMLText.escape(warning)).</p>")
        }
        if let lag = ReportWording.lag(report) {
            html.append("<p class=\"meta\"><strong>Lag</strong> (survey-bot's own): \(XMLText.escape(lag)).</p>")
        }
        html.append(thresholds(report))
        html.append(charts(TimelineCharts(runs: [.init(report: report, label: nil, dashed: false)])))
        html.append(tables(report))
        return html.joined(separator: "\n")
    }

    static func verdictClass(_ report: RunReport) -> String {
        switch ReportWording.mood(report) {
        case .good: "ok"
        case .bad: "bad"
        case .warning: "warn"
        }
    }

    static func thresholds(_ report: RunReport) -> String {
        guard !report.thresholds.isEmpty else { return "<p class=\"note\">No thresholds in the plan.</p>" }
        let rows = report.thresholds.map { result in
            [
                "<code>\(XMLText.escape(result.threshold.description))</code>"
                    + (result.threshold.implicit ? " (implicit)" : result.threshold.abort ? " (abort)" : ""),
                XMLText.escape(Readable.actual(result)),
                result.passed ? "✓ passed" : "✗ failed",
            ]
        }
        return "<h2>Thresholds</h2>"
            + HTMLPage.table(
                ["threshold", "actual", "result"], rows, numeric: [1], rowClasses: report.thresholds.map { $0.passed ? "passed" : "failed" }
            )
    }

    /// The charts, in order; those with nothing to draw are left out, and a report without a
    /// timeline says so.
    static func charts(_ charts: TimelineCharts, regressed: (String) -> Bool = { _ in false }) -> String {
        guard charts.hasTimeline else {
            return "<h2>Over time</h2><p class=\"note\">This report has no timeline (<code>report.interval: off</code>, or written "
                + "by a version before timelines).</p>"
        }
        var figures: [String] = []
        func add(_ chart: LineChart?, key: String) {
            guard var chart, chart.hasData else { return }
            if regressed(key) { chart.title += " — regressed" }
            var html = chart.html()
            if regressed(key) { html = html.replacingFirst("<figure class=\"chart\">", with: "<figure class=\"chart regressed\">") }
            figures.append(html)
        }
        var html = "<h2>Over time</h2>"
        if let tooShort = charts.tooShort {
            // The distribution is of the whole run, not over time: it still shows.
            html += "<p class=\"note\">\(tooShort.prefix(1).uppercased() + tooShort.dropFirst()).</p>"
            add(charts.distribution, key: "distribution")
        } else {
            add(charts.attempts, key: "attempts")
            if let errors = charts.errors {
                add(errors, key: "errors")
            }
            for (step, chart) in charts.latency { add(chart, key: "latency.\(step)") }
            add(charts.distribution, key: "distribution")
            add(charts.retries, key: "retries")
            add(charts.respondents, key: "respondents")
            add(charts.lag, key: "lag")
        }
        if charts.errors == nil { html += "<p class=\"note\">No attempt failed.</p>" }
        if charts.noLatency {
            html +=
                "<p class=\"note\">No attempt succeeded: there is no latency to chart (the failed attempts' time to fail is under Errors).</p>"
        }
        return html + "<div class=\"charts\">\n" + figures.joined(separator: "\n") + "\n</div>"
    }

    /// What the survey saw, question by question: the Markdown report's table and the questions
    /// never shown, as HTML; nothing for a report without the section.
    static func questions(_ report: RunReport) -> String {
        guard let questions = report.questions else { return "" }
        var html = "<h2>Questions</h2>"
        if questions.byID.isEmpty, questions.beyondLimit == nil {
            html += "<p class=\"note\">No respondent was shown a question.</p>"
        } else {
            let rows = ReportWording.questionRows(questions).map { $0.map(XMLText.escape) }
            html += HTMLPage.table(ReportWording.questionColumns, rows, numeric: Set(1...6))
            html +=
                "<p class=\"note\">Refused answers (a 4xx or <code>rejected</code> of a submit per question) are counted in unanswered too.</p>"
        }
        if let unreached = ReportWording.unreached(questions) {
            html += "<p><strong>Never shown</strong> (the plan answers them; no respondent reached them): \(XMLText.escape(unreached)).</p>"
        }
        return html
    }

    /// The Markdown report's tables and lines, as HTML.
    static func tables(_ report: RunReport) -> String {
        let figures = RunFigures(report)
        var html: [String] = ["<h2>Steps</h2>"]
        let rows = figures.steps.compactMap { name -> [String]? in
            guard let calls = figures.perStep[name] else { return nil }
            let latency = calls.latency
            return [
                name, String(calls.calls), String(calls.attempts), Readable.percent(calls.successRate),
                Readable.percent(calls.firstTrySuccessRate), String(calls.retries), Readable.ms(latency?.p50), Readable.ms(latency?.p95),
                Readable.ms(latency?.p99), Readable.ms(latency?.max),
            ].map(XMLText.escape)
        }
        let latency = ReportWording.latencyHeading(coversFailures: figures.survey.latencyCoversFailures)
        html.append(
            HTMLPage.table(
                ["step", "calls", "attempts", "success", "first try", "retries", "p50", "p95", "p99", "max"], rows,
                numeric: Set(1...9), groups: [("", 6), (latency, 4)]))
        html.append("<p><strong>Respondents:</strong> \(XMLText.escape(ReportWording.respondents(report))).</p>")
        html.append("<p><strong>Answers:</strong> \(XMLText.escape(ReportWording.answers(report))).</p>")
        if let notRetried = ReportWording.notRetried(report) {
            html.append("<p><strong>Not retried:</strong> \(XMLText.escape(notRetried)).</p>")
        }
        html.append("<p><strong>Throughput:</strong> \(XMLText.escape(Readable.number(report.throughput.attemptsPerS))) attempts/s</p>")
        if let connections = ReportWording.connections(figures) {
            html.append("<p><strong>Connections:</strong> \(XMLText.escape(connections)).</p>")
        }
        html.append(questions(report))
        let errors = ReportWording.errors(report)
        if !errors.isEmpty {
            html.append("<h2>Errors</h2>")
            // A reason column only where a kind has more to say than its name (a TLS failure, a server's refusal).
            let withReasons = errors.contains { $0.sample != nil }
            html.append(
                HTMLPage.table(
                    ["step", "kind", "attempts"] + (withReasons ? ["first reason"] : []),
                    errors.map { error in
                        ([error.step, error.kind, String(error.count)] + (withReasons ? [error.sample ?? ""] : [])).map(XMLText.escape)
                    }, numeric: [2]))
            if let timeToFail = ReportWording.timeToFail(figures) {
                html.append(
                    "<p><strong>Time to fail</strong> (failed attempts, apart from the latency): \(XMLText.escape(timeToFail)).</p>")
            }
        }
        return html.joined(separator: "\n")
    }
}

extension String {
    /// The string with the first occurrence of `target` replaced.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = range(of: target) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
