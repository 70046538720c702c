import Foundation

/// The timeline as CSV (RFC 4180, but with LF line ends, as most tools write them): one row per
/// interval and step, steps in the journey's order, for spreadsheets and scripts. The columns
/// are documented in docs/report-format.md (`endpoint` is the step's name, under the name steps
/// had before journeys); a report without a timeline (`report.interval: off`) gives the header
/// alone.
enum CSVReport: ReportRenderer {
    static let columns = [
        "interval_start", "t_s", "interval_s", "endpoint", "attempts", "succeeded", "failed", "retries", "attempts_per_s",
        "failures_per_s", "p50_ms", "p95_ms", "p99_ms", "max_ms", "errors", "respondents_active", "respondents_started", "dropped",
        "covered_s", "lag_p99_ms",
    ]

    static func render(_ report: RunReport) -> String {
        var lines = [columns.map(quoted).joined(separator: ",")]
        guard let timeline = report.timeline else { return lines.joined(separator: "\n") + "\n" }
        let covered = timeline.covered(startedAt: report.startedAt, endedAt: report.endedAt)
        for position in timeline.survey.indices {
            // Rates and respondents active over the part of the interval the run covered.
            let part = covered[position]
            let survey = timeline.survey[position]
            let start = timeline.gridPosition.map { grid in
                TimelineGrid.timestamp(milliseconds: (grid.first + UInt64(position)) * (grid.interval / 1_000_000))
            }
            for name in report.stepNames {
                guard let points = timeline.stepPoints[name], position < points.count else { continue }
                let point = points[position]
                let errors = point.errors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ";")
                let fields: [String] = [
                    start ?? "", number(point.t), number(timeline.intervalS), name, String(point.attempts), String(point.succeeded),
                    String(point.failed), String(point.retries), number(part.rate(point.attempts)), number(part.rate(point.failed)),
                    number(point.p50), number(point.p95), number(point.p99), number(point.max), errors,
                    number(part.rate(survey.respondentsActive * timeline.intervalS)), String(survey.respondentsStarted),
                    String(survey.dropped), number(part.seconds), number(survey.lagP99),
                ]
                lines.append(fields.map(quoted).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A number as CSV shows it: plain digits, up to 3 decimals; empty when absent or not finite.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int(rounded)) : String(rounded)
    }

    /// The characters a spreadsheet reads a formula from at a cell's start (OWASP's list).
    static let formulaStarts: Set<Character> = ["=", "+", "-", "@", "\t", "\r"]

    /// A field as a CSV cell: one that begins like a formula gets a `'` before it, so that no
    /// spreadsheet runs it (OWASP's CSV injection rule), and a field that holds a comma, a quote
    /// or a line break (or got the `'`) is quoted, its quotes doubled (RFC 4180). Every cell
    /// this format writes goes through it.
    static func quoted(_ field: String) -> String {
        let neutral = field.unicodeScalars.first.map { formulaStarts.contains(Character($0)) } ?? false
        guard neutral || field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + (neutral ? "'" : "") + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
