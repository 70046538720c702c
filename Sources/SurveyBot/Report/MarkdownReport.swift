import Foundation
import SurveyEngine

/// The report for people: a verdict, a table of the endpoints, respondents and answers, error
/// kinds, thresholds, a latency chart and a throughput sparkline. GitHub-flavoured Markdown,
/// rendered from the JSON report alone.
enum MarkdownReport {
    static func render(_ report: RunReport) -> String {
        var lines: [String] = []
        lines.append("# survey-bot: \(report.name)")
        lines.append("")
        lines.append("**\(verdict(report))** — \(report.target), \(report.startedAt), \(format(report.durationS)) s")
        if let shard = report.shard { lines += ["", "Shard \(shard) of a larger run."] }
        lines.append("")
        lines.append("| endpoint | calls | attempts | success | first try | retries | p50 | p95 | p99 | max |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name in ["questions", "submit"] {
            guard let endpoint = report.endpoints[name] else { continue }
            let latency = endpoint.latencyMs
            lines.append(
                "| \(name) | \(endpoint.calls) | \(endpoint.attempts) | \(percent(endpoint.succeeded, endpoint.calls)) "
                    + "| \(percent(endpoint.firstTrySucceeded, endpoint.calls)) | \(endpoint.retries) | \(ms(latency.p50)) | \(ms(latency.p95)) "
                    + "| \(ms(latency.p99)) | \(ms(latency.max)) |")
        }
        lines.append("")
        let respondents = report.respondents
        var who =
            "**Respondents:** \(respondents.started) started, \(respondents.completed) completed, "
            + "\(respondents.finishedWithUnanswered) finished with unanswered questions, \(respondents.abandoned) abandoned"
        if !respondents.abandonedReasons.isEmpty {
            who +=
                " (" + respondents.abandonedReasons.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                + ")"
        }
        if respondents.dropped > 0 { who += ", \(respondents.dropped) arrivals dropped at the concurrency cap" }
        lines.append(who + ".")
        lines.append("")
        var answers = "**Answers:** \(report.answers.submitted) submitted, \(report.answers.unanswered) unanswered"
        if report.answers.missing > 0 { answers += ", \(report.answers.missing) with no answer in the plan" }
        lines.append(answers + ".")
        lines.append("")
        lines.append("**Throughput:** \(format(report.throughput.attemptsPerS)) attempts/s")
        if !report.throughput.timeline.isEmpty {
            lines.append("")
            lines.append("`\(sparkline(report.throughput.timeline))` attempts per second")
        }
        let errorRows = ["questions", "submit"].flatMap { name in
            (report.endpoints[name]?.errors ?? [:]).filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
                "| \(name) | \($0.key) | \($0.value) |"
            }
        }
        if !errorRows.isEmpty {
            lines += ["", "## Errors", "", "| endpoint | kind | attempts |", "|---|---|---:|"]
            lines.append(contentsOf: errorRows)
        }
        if !report.thresholds.isEmpty {
            lines += ["", "## Thresholds", "", "| threshold | actual | result |", "|---|---:|---|"]
            for threshold in report.thresholds {
                lines.append("| `\(threshold.text)` | \(actualText(threshold)) | \(threshold.passed ? "✅ passed" : "❌ failed") |")
            }
        }
        for name in ["questions", "submit"] {
            guard let endpoint = report.endpoints[name], endpoint.attempts > 0, let histogram = endpoint.histogram.histogram else {
                continue
            }
            lines += ["", "## Latency of \(name)", "", "```"]
            lines.append(contentsOf: chart(histogram))
            lines.append("```")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func verdict(_ report: RunReport) -> String {
        if report.interrupted { return "⚠️ interrupted" }
        let failed = report.thresholds.filter { !$0.passed }.count
        if failed > 0 { return "❌ failed \(failed) of \(report.thresholds.count) thresholds" }
        return report.thresholds.isEmpty ? "✅ completed" : "✅ passed \(report.thresholds.count) thresholds"
    }

    static func actualText(_ threshold: RunReport.ThresholdResult) -> String {
        guard let actual = threshold.actual else { return "no data" }
        let metric = threshold.name.split(separator: ".").last.map(String.init) ?? ""
        switch Threshold.Metric(rawValue: metric)?.unit {
        case .latency: return ms(actual)
        case .ratio: return formatPercent(actual)
        case .perSecond: return "\(format(actual))/s"
        default: return format(actual)
        }
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "–" : formatPercent(Double(part) / Double(whole))
    }

    static func ms(_ value: Double) -> String {
        value >= 100 && value < 1e15 ? "\(Int(value.rounded())) ms" : "\(format(value)) ms"
    }

    /// A number with at most 3 significant decimals, no trailing zeros.
    static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        let digits = abs(value) >= 10 ? 1 : abs(value) >= 1 ? 2 : 3
        var text = String(value.formattedDecimals(digits))
        while text.contains(".") && (text.hasSuffix("0") || text.hasSuffix(".")) { text.removeLast() }
        return text
    }

    static func sparkline(_ values: [Int]) -> String {
        let bars = Array("▁▂▃▄▅▆▇█")
        let top = max(values.max() ?? 0, 1)
        return String(values.map { bars[min(bars.count - 1, max(0, $0) * (bars.count - 1) / top)] })
    }

    /// A horizontal bar chart of the latency distribution in 12 logarithmic bins.
    static func chart(_ histogram: Histogram) -> [String] {
        let bins = histogram.chart(bins: 12).filter { $0.count > 0 }
        let top = bins.map(\.count).max() ?? 1
        return bins.map { bin in
            let label = "\(ms(milliseconds(Double(bin.lower)))) – \(ms(milliseconds(Double(bin.upper))))"
            let width = Int((Double(bin.count) / Double(top) * 40).rounded(.up))
            return label.padding(toLength: 24, withPad: " ", startingAt: 0) + " " + String(repeating: "█", count: width) + " \(bin.count)"
        }
    }
}

extension Double {
    /// The value with `digits` decimals, as text.
    func formattedDecimals(_ digits: Int) -> String {
        let scale = [1.0, 10, 100, 1000][min(max(digits, 0), 3)]
        let rounded = (self * scale).rounded() / scale
        var text = "\(rounded)"
        if text.contains("e") && abs(rounded) < 1e15 { text = "\(Int(rounded))" }
        return text
    }
}
