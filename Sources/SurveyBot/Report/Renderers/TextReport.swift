import SurveyEngine

/// The short summary printed after a run, and `report --format text`: plain text for a
/// terminal or a CI log.
enum TextReport: ReportRenderer {
    static func render(_ report: RunReport) -> String {
        let figures = RunFigures(report)
        var lines: [String] = []
        let partial = report.missingShardsText.map { "PARTIAL merge, \($0) — " } ?? ""
        lines.append(
            "\(report.name): \(partial)\(verdict(report)) in \(Readable.number(report.durationS)) s against \(report.target)"
                + ReportWording.stopped(report))
        let header = "  step        calls  attempts  success  first try  retries      p50      p95      p99      max"
        // Which attempts p50 … max cover, over them.
        let latency = ReportWording.latencyHeading(coversFailures: figures.survey.latencyCoversFailures)
        lines.append(String(repeating: " ", count: max(0, header.count - latency.count)) + latency)
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
        lines.append("  respondents: " + ReportWording.respondents(report, short: true))
        lines.append("  answers: " + ReportWording.answers(report))
        if let questions = ReportWording.questions(report) { lines.append("  questions: " + questions) }
        if let local = report.localResource { lines.append("  not sent: " + ReportWording.localResource(local)) }
        if let raw = ReportWording.raw(report) { lines.append("  raw attempts: " + raw) }
        if let lag = ReportWording.lag(report) { lines.append("  lag: " + lag) }
        if let warning = ReportWording.lagWarning(report) { lines.append("  WARNING: " + warning) }
        let errors = ReportWording.errors(report).map { error in
            "\(error.step) \(error.kind) \(error.count)" + (error.sample.map { " (\($0))" } ?? "")
        }
        if !errors.isEmpty { lines.append("  errors: " + errors.joined(separator: ", ")) }
        if let timeToFail = ReportWording.timeToFail(figures) { lines.append("  time to fail: " + timeToFail) }
        if let notRetried = ReportWording.notRetried(report) { lines.append("  not retried: " + notRetried) }
        if let connections = ReportWording.connections(figures) { lines.append("  connections: " + connections) }
        lines.append("  throughput: \(Readable.number(report.throughput.attemptsPerS)) attempts/s")
        for result in report.thresholds {
            let mark = result.passed ? "ok  " : "FAIL"
            let kind = result.threshold.implicit ? "; implicit, the plan sets no thresholds" : result.threshold.abort ? "; abort" : ""
            lines.append("  \(mark) \(result.threshold) (actual \(Readable.actual(result))\(kind))")
        }
        // What a report file holds reaches a terminal: its control characters shown, not acted on.
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n") + "\n"
    }

    /// The verdict, its first word in capitals unless the run passed: `FAILED 2 of 4 thresholds`.
    static func verdict(_ report: RunReport) -> String {
        let words = ReportWording.verdict(report)
        guard ReportWording.mood(report) != .good else { return words }
        let first = words.prefix { $0.isLetter }
        return first.uppercased() + words.dropFirst(first.count)
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let fill = String(repeating: " ", count: width - count)
        return left ? text + fill : fill + text
    }
}
