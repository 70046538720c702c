import SurveyEngine

/// The short summary printed after a run, and `report --format text`: plain text for a
/// terminal or a CI log.
enum TextReport: ReportRenderer {
    static func render(_ report: RunReport) -> String {
        let figures = RunFigures(report)
        var lines: [String] = []
        let partial = report.missingShardsText.map { "PARTIAL merge, \($0) — " } ?? ""
        var title = "\(report.name): \(partial)\(verdict(report)) in \(Readable.number(report.durationS)) s against \(report.target)"
        if report.stoppedBy == StopCause.duration.rawValue { title += ", stopped at its duration" }
        if report.stoppedBy == StopCause.data.rawValue { title += ", stopped when the data rows ran out" }
        lines.append(title)
        let header = "  step        calls  attempts  success  first try  retries      p50      p95      p99      max"
        lines.append(header)
        for name in figures.steps {
            guard let calls = figures.perStep[name] else { continue }
            let latency = calls.latency
            let columns = [
                pad(name, 10, left: true), pad("\(calls.calls)", 7), pad("\(calls.attempts)", 9),
                pad(Readable.percent(calls.successRate), 8),
                pad(Readable.percent(calls.firstTrySuccessRate), 10), pad("\(calls.retries)", 8), pad(Readable.ms(latency?.p50), 8),
                pad(Readable.ms(latency?.p95), 8), pad(Readable.ms(latency?.p99), 8), pad(Readable.ms(latency?.max), 8),
            ]
            lines.append("  " + columns.joined(separator: " "))
        }
        let respondents = report.respondents
        var who =
            "  respondents: \(respondents.started) started, \(respondents.completed) completed, "
            + "\(respondents.finishedWithUnanswered) with unanswered, \(respondents.abandoned) abandoned"
            + MarkdownReport.abandonedReasons(respondents)
        if let cutShort = respondents.cutShort, cutShort > 0 {
            who += ", \(cutShort) cut short by \(MarkdownReport.cutShortCause(report))"
        }
        if respondents.dropped > 0 { who += ", \(respondents.dropped) dropped" }
        lines.append(who)
        var answers = "  answers: \(report.answers.submitted) submitted, \(report.answers.unanswered) unanswered"
        if report.answers.skipped > 0 { answers += ", \(report.answers.skipped) skipped (no answer in the plan)" }
        lines.append(answers)
        if let local = report.localResource { lines.append("  not sent: " + MarkdownReport.localResource(local)) }
        if let raw = MarkdownReport.rawText(report) { lines.append("  raw attempts: " + raw) }
        let errors = MarkdownReport.errors(report).map { error in
            "\(error.step) \(error.kind) \(error.count)" + (error.sample.map { " (\($0))" } ?? "")
        }
        if !errors.isEmpty { lines.append("  errors: " + errors.joined(separator: ", ")) }
        if let connections = MarkdownReport.connections(figures) { lines.append("  connections: " + connections) }
        lines.append("  throughput: \(Readable.number(report.throughput.attemptsPerS)) attempts/s")
        for result in report.thresholds {
            let mark = result.passed ? "ok  " : "FAIL"
            let kind = result.threshold.implicit ? "; implicit, the plan sets no thresholds" : result.threshold.abort ? "; abort" : ""
            lines.append("  \(mark) \(result.threshold) (actual \(Readable.actual(result))\(kind))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func verdict(_ report: RunReport) -> String {
        switch report.verdict {
        case .interrupted: "INTERRUPTED"
        case .localResource: "FAILED: out of local resources"
        case .failed(let failed, let of): "FAILED \(failed) of \(of) threshold\(of == 1 ? "" : "s")"
        case .noneCompleted: "FAILED: no respondent completed the survey"
        case .stoppedByThreshold(let threshold): "FAILED: stopped by \(threshold ?? "a threshold") (abort)"
        case .partial(let held): "\(held) threshold\(held == 1 ? "" : "s") held on \(report.shardsMergedText)"
        case .passed(let count): "passed \(count) threshold\(count == 1 ? "" : "s")"
        case .completed: "completed"
        }
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let fill = String(repeating: " ", count: width - count)
        return left ? text + fill : fill + text
    }
}
