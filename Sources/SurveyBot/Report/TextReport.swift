import Foundation

/// The short summary printed after a run, and `report --format text`: plain text for a
/// terminal or a CI log.
enum TextReport {
    static func render(_ report: RunReport) -> String {
        var lines: [String] = []
        lines.append("\(report.name): \(verdict(report)) in \(MarkdownReport.format(report.durationS)) s against \(report.target)")
        let header = "  endpoint    calls  attempts  success  first try  retries      p50      p95      p99      max"
        lines.append(header)
        for name in ["questions", "submit"] {
            guard let endpoint = report.endpoints[name] else { continue }
            let latency = endpoint.latencyMs
            let columns = [
                pad(name, 10, left: true), pad("\(endpoint.calls)", 7), pad("\(endpoint.attempts)", 9),
                pad(MarkdownReport.percent(endpoint.succeeded, endpoint.calls), 8),
                pad(MarkdownReport.percent(endpoint.firstTrySucceeded, endpoint.calls), 10), pad("\(endpoint.retries)", 8),
                pad(MarkdownReport.ms(latency.p50), 8), pad(MarkdownReport.ms(latency.p95), 8), pad(MarkdownReport.ms(latency.p99), 8),
                pad(MarkdownReport.ms(latency.max), 8),
            ]
            lines.append("  " + columns.joined(separator: " "))
        }
        let respondents = report.respondents
        var who =
            "  respondents: \(respondents.started) started, \(respondents.completed) completed, "
            + "\(respondents.finishedWithUnanswered) with unanswered, \(respondents.abandoned) abandoned"
        if respondents.dropped > 0 { who += ", \(respondents.dropped) dropped" }
        lines.append(who)
        lines.append("  answers: \(report.answers.submitted) submitted, \(report.answers.unanswered) unanswered")
        let errors = ["questions", "submit"].flatMap { name in
            (report.endpoints[name]?.errors ?? [:]).filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
                "\(name) \($0.key) \($0.value)"
            }
        }
        if !errors.isEmpty { lines.append("  errors: " + errors.joined(separator: ", ")) }
        lines.append("  throughput: \(MarkdownReport.format(report.throughput.attemptsPerS)) attempts/s")
        for threshold in report.thresholds {
            let mark = threshold.passed ? "ok  " : "FAIL"
            lines.append("  \(mark) \(threshold.text) (actual \(MarkdownReport.actualText(threshold)))")
        }
        return lines.joined(separator: "\n")
    }

    static func verdict(_ report: RunReport) -> String {
        if report.interrupted { return "INTERRUPTED" }
        let failed = report.thresholds.filter { !$0.passed }.count
        if failed > 0 { return "FAILED \(failed) of \(report.thresholds.count) thresholds" }
        return report.thresholds.isEmpty ? "completed" : "passed \(report.thresholds.count) thresholds"
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let count = text.count
        guard count < width else { return text }
        let fill = String(repeating: " ", count: width - count)
        return left ? text + fill : fill + text
    }
}
