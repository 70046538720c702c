import Foundation

/// Two reports side by side, metric by metric, with a verdict that knows which way is worse:
/// latency up is worse, success down is worse. A change counts only when it is beyond both the
/// tolerance (relative) and the noise floor (absolute).
struct ReportDiff {
    enum Verdict: String, Encodable {
        case same, improved, regressed
        /// The endpoint was called in the base run and not in the new one.
        case missing
        /// The endpoint was called in the new run only.
        case added
    }

    enum Direction { case lowerIsBetter, higherIsBetter }

    enum Unit: String, Encodable {
        case ms, ratio
        case perSecond = "per_s"
        case count
    }

    struct Row: Encodable {
        var endpoint: String
        var metric: String
        var unit: Unit
        var base: Double?
        var new: Double?
        var change: Double?
        /// The relative change in percent, of the "bad" quantity for rates (failures for a
        /// success rate): 99% → 95% success is +400% failures.
        var changePercent: Double?
        var verdict: Verdict

        enum CodingKeys: String, CodingKey {
            case endpoint, metric, unit, base, new, change, verdict
            case changePercent = "change_percent"
        }
    }

    /// How much worse a metric may get before it counts, as a fraction: `default` for all,
    /// `overrides` by metric name (`p99`) or endpoint and metric (`submit.p99`).
    struct Tolerances {
        var `default` = 0.10
        var overrides: [String: Double] = [:]

        func tolerance(endpoint: String, metric: String) -> Double {
            overrides["\(endpoint).\(metric)"] ?? overrides[metric] ?? `default`
        }
    }

    /// Changes smaller than these are noise, whatever their relative size.
    static let latencyFloorMs = 0.2
    static let ratioFloor = 0.005
    static let rateFloor = 1.0

    var rows: [Row]
    var regressions: [Row] { rows.filter { $0.verdict == .regressed || $0.verdict == .missing } }

    init(base: RunReport, new: RunReport, tolerances: Tolerances) {
        var rows: [Row] = []
        for name in ["questions", "submit"] {
            let before = base.endpoints[name]
            let after = new.endpoints[name]
            let baseCalls = before?.calls ?? 0
            let newCalls = after?.calls ?? 0
            if baseCalls == 0 && newCalls == 0 { continue }
            if newCalls == 0 {
                rows.append(Row(endpoint: name, metric: "calls", unit: .count, base: Double(baseCalls), new: 0, verdict: .missing))
                continue
            }
            if baseCalls == 0 {
                rows.append(Row(endpoint: name, metric: "calls", unit: .count, base: 0, new: Double(newCalls), verdict: .added))
                continue
            }
            guard let before, let after else { continue }
            func add(_ metric: String, _ unit: Unit, _ direction: Direction, _ value: (RunReport.EndpointReport, RunReport) -> Double) {
                rows.append(
                    Self.row(
                        endpoint: name, metric: metric, unit: unit, direction: direction, base: value(before, base), new: value(after, new),
                        tolerance: tolerances.tolerance(endpoint: name, metric: metric)))
            }
            add("success_rate", .ratio, .higherIsBetter) { e, _ in Double(e.succeeded) / Double(e.calls) }
            add("first_try_success_rate", .ratio, .higherIsBetter) { e, _ in Double(e.firstTrySucceeded) / Double(e.calls) }
            add("error_rate", .ratio, .lowerIsBetter) { e, _ in e.attempts == 0 ? 0 : Double(e.failedAttempts) / Double(e.attempts) }
            add("retries_per_call", .ratio, .lowerIsBetter) { e, _ in Double(e.retries) / Double(e.calls) }
            add("mean", .ms, .lowerIsBetter) { e, _ in e.latencyMs.mean }
            add("p50", .ms, .lowerIsBetter) { e, _ in e.latencyMs.p50 }
            add("p90", .ms, .lowerIsBetter) { e, _ in e.latencyMs.p90 }
            add("p95", .ms, .lowerIsBetter) { e, _ in e.latencyMs.p95 }
            add("p99", .ms, .lowerIsBetter) { e, _ in e.latencyMs.p99 }
            add("p999", .ms, .lowerIsBetter) { e, _ in e.latencyMs.p999 }
            add("max", .ms, .lowerIsBetter) { e, _ in e.latencyMs.max }
            add("attempts_per_s", .perSecond, .higherIsBetter) { e, r in r.durationS > 0 ? Double(e.attempts) / r.durationS : 0 }
        }
        if base.respondents.started > 0 && new.respondents.started > 0 {
            rows.append(
                Self.row(
                    endpoint: "survey", metric: "completion_rate", unit: .ratio, direction: .higherIsBetter,
                    base: Double(base.respondents.completed) / Double(base.respondents.started),
                    new: Double(new.respondents.completed) / Double(new.respondents.started),
                    tolerance: tolerances.tolerance(endpoint: "survey", metric: "completion_rate")))
        }
        self.rows = rows
    }

    static func row(
        endpoint: String, metric: String, unit: Unit, direction: Direction, base: Double, new: Double, tolerance: Double
    ) -> Row {
        let change = new - base
        let floor =
            switch unit {
            case .ms: latencyFloorMs
            case .ratio: ratioFloor
            case .perSecond: rateFloor
            case .count: 0.5
            }
        // Rates near 100% are compared by what they miss: 99% → 95% success is five times the failures.
        let complement = unit == .ratio && direction == .higherIsBetter
        let badBase = complement ? 1 - base : base
        let badNew = complement ? 1 - new : new
        let relative: Double? = badBase == 0 ? (badNew == 0 ? 0 : nil) : (badNew - badBase) / abs(badBase)
        var verdict = Verdict.same
        if abs(change) > floor {
            let beyond = relative.map { abs($0) > tolerance } ?? true
            if beyond {
                let worse = direction == .lowerIsBetter ? change > 0 : change < 0
                verdict = worse ? .regressed : .improved
            }
        }
        let percent = relative.map { ($0 * 1000).rounded() / 10 }
        return Row(
            endpoint: endpoint, metric: metric, unit: unit, base: rounded(base), new: rounded(new), change: rounded(change),
            changePercent: percent, verdict: verdict)
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1_000_000).rounded() / 1_000_000
    }

    // MARK: Rendering

    func text(basePath: String, newPath: String, tolerances: Tolerances) -> String {
        var lines = ["diff: \(basePath) → \(newPath) (tolerance \(formatPercent(tolerances.default)))"]
        let header = ["endpoint", "metric", "base", "new", "change", "verdict"]
        var table = [header]
        for row in rows {
            table.append([
                row.endpoint, row.metric, Self.format(row.base, row.unit), Self.format(row.new, row.unit), Self.changeText(row),
                row.verdict == .same ? "same" : row.verdict.rawValue.uppercased(),
            ])
        }
        let widths = (0..<header.count).map { column in table.map { $0[column].count }.max() ?? 0 }
        for line in table {
            let cells = line.enumerated().map { index, cell in
                let fill = String(repeating: " ", count: widths[index] - cell.count)
                return index < 2 || index == 5 ? cell + fill : fill + cell
            }
            var line = "  " + cells.joined(separator: "  ")
            while line.hasSuffix(" ") { line.removeLast() }
            lines.append(line)
        }
        lines.append(summary)
        return lines.joined(separator: "\n")
    }

    func markdown(basePath: String, newPath: String) -> String {
        var lines = ["## survey-bot diff", "", "`\(basePath)` → `\(newPath)`", "", "| endpoint | metric | base | new | change | verdict |"]
        lines.append("|---|---|---:|---:|---:|---|")
        for row in rows {
            let mark =
                switch row.verdict {
                case .regressed, .missing: "❌ \(row.verdict.rawValue)"
                case .improved: "✅ improved"
                case .added: "➕ added"
                case .same: "same"
                }
            lines.append(
                "| \(row.endpoint) | \(row.metric) | \(Self.format(row.base, row.unit)) | \(Self.format(row.new, row.unit)) "
                    + "| \(Self.changeText(row)) | \(mark) |")
        }
        lines += ["", "**\(summary)**"]
        return lines.joined(separator: "\n") + "\n"
    }

    func json(basePath: String, newPath: String) -> String {
        struct Document: Encodable {
            var base: String
            var new: String
            var regressions: Int
            var rows: [Row]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Document(base: basePath, new: newPath, regressions: regressions.count, rows: rows))) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    var summary: String {
        let bad = regressions
        if bad.isEmpty { return "no regressions" }
        let names = bad.map { "\($0.endpoint) \($0.metric)" }.joined(separator: ", ")
        return "\(bad.count) regression\(bad.count == 1 ? "" : "s"): \(names)"
    }

    static func format(_ value: Double?, _ unit: Unit) -> String {
        guard let value else { return "–" }
        switch unit {
        case .ms: return MarkdownReport.ms(value)
        case .ratio: return formatPercent(value)
        case .perSecond: return "\(MarkdownReport.format((value * 10).rounded() / 10))/s"
        case .count: return MarkdownReport.format(value)
        }
    }

    static func changeText(_ row: Row) -> String {
        guard let change = row.change else { return "–" }
        let sign = change > 0 ? "+" : change < 0 ? "−" : "±"
        let magnitude: String
        switch row.unit {
        case .ms: magnitude = MarkdownReport.ms(abs(change))
        case .ratio: magnitude = "\(MarkdownReport.format((abs(change) * 1000).rounded() / 10)) pp"
        case .perSecond: magnitude = "\(MarkdownReport.format((abs(change) * 10).rounded() / 10))/s"
        case .count: magnitude = MarkdownReport.format(abs(change))
        }
        guard let percent = row.changePercent else { return sign + magnitude }
        let percentSign = percent > 0 ? "+" : percent < 0 ? "−" : "±"
        return "\(sign)\(magnitude) (\(percentSign)\(MarkdownReport.format(abs(percent)))%)"
    }
}
