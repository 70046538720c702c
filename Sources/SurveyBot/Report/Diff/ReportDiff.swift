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
        /// `null` in JSON where there is no figure.
        @NullWhenAbsent var base: Double? = nil
        @NullWhenAbsent var new: Double? = nil
        @NullWhenAbsent var change: Double? = nil
        /// The relative change in percent, of the "bad" quantity for rates (failures for a
        /// success rate): 99% → 95% success is +400% failures. `null` when the base is 0, or so
        /// near it that the ratio is not a finite number.
        @NullWhenAbsent var changePercent: Double? = nil
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
    /// The two reports' paths, as the user gave them.
    var basePath: String
    var newPath: String
    var tolerances: Tolerances
    var regressions: [Row] { rows.filter { $0.verdict == .regressed || $0.verdict == .missing } }

    init(base: RunReport, new: RunReport, tolerances: Tolerances, basePath: String = "base", newPath: String = "new") {
        self.basePath = basePath
        self.newPath = newPath
        self.tolerances = tolerances
        let before = RunFigures(base)
        let after = RunFigures(new)
        var rows: [Row] = []
        for name in ["questions", "submit"] {
            let baseCalls = before.endpoints[name]?.calls ?? 0
            let newCalls = after.endpoints[name]?.calls ?? 0
            if baseCalls == 0 && newCalls == 0 { continue }
            if newCalls == 0 {
                rows.append(Row(endpoint: name, metric: "calls", unit: .count, base: Double(baseCalls), new: 0, verdict: .missing))
                continue
            }
            if baseCalls == 0 {
                rows.append(Row(endpoint: name, metric: "calls", unit: .count, base: 0, new: Double(newCalls), verdict: .added))
                continue
            }
            guard let b = before.endpoints[name], let a = after.endpoints[name] else { continue }
            func add(_ metric: String, _ unit: Unit, _ direction: Direction, _ value: (RunFigures.Calls) -> Double?) {
                rows.append(
                    Self.row(
                        endpoint: name, metric: metric, unit: unit, direction: direction, base: value(b) ?? 0, new: value(a) ?? 0,
                        tolerance: tolerances.tolerance(endpoint: name, metric: metric)))
            }
            add("success_rate", .ratio, .higherIsBetter) { $0.successRate }
            add("first_try_success_rate", .ratio, .higherIsBetter) { $0.firstTrySuccessRate }
            add("error_rate", .ratio, .lowerIsBetter) { $0.errorRate }
            add("retries_per_call", .ratio, .lowerIsBetter) { $0.retriesPerCall }
            add("mean", .ms, .lowerIsBetter) { $0.latency?.mean }
            add("p50", .ms, .lowerIsBetter) { $0.latency?.p50 }
            add("p90", .ms, .lowerIsBetter) { $0.latency?.p90 }
            add("p95", .ms, .lowerIsBetter) { $0.latency?.p95 }
            add("p99", .ms, .lowerIsBetter) { $0.latency?.p99 }
            add("p999", .ms, .lowerIsBetter) { $0.latency?.p999 }
            add("max", .ms, .lowerIsBetter) { $0.latency?.max }
            add("attempts_per_s", .perSecond, .higherIsBetter) { $0.attemptsPerSecond }
        }
        if let b = before.completionRate, let a = after.completionRate {
            rows.append(
                Self.row(
                    endpoint: "survey", metric: "completion_rate", unit: .ratio, direction: .higherIsBetter, base: b, new: a,
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
        // A base so near 0 that the ratio overflows has no relative change either.
        let relative: Double? = badBase == 0 ? (badNew == 0 ? 0 : nil) : ((badNew - badBase) / abs(badBase)).finite
        var verdict = Verdict.same
        if abs(change) > floor {
            let beyond = relative.map { abs($0) > tolerance } ?? true
            if beyond {
                let worse = direction == .lowerIsBetter ? change > 0 : change < 0
                verdict = worse ? .regressed : .improved
            }
        }
        let percent = relative.flatMap { (($0 * 1000).rounded() / 10).finite }
        return Row(
            endpoint: endpoint, metric: metric, unit: unit, base: rounded(base), new: rounded(new), change: rounded(change),
            changePercent: percent, verdict: verdict)
    }

    private static func rounded(_ value: Double) -> Double {
        (value * 1_000_000).rounded() / 1_000_000
    }

    var summary: String {
        let bad = regressions
        if bad.isEmpty { return "no regressions" }
        let names = bad.map { "\($0.endpoint) \($0.metric)" }.joined(separator: ", ")
        return "\(bad.count) regression\(bad.count == 1 ? "" : "s"): \(names)"
    }
}

extension Double {
    /// The value, or nil when it is infinite or NaN.
    var finite: Double? { isFinite ? self : nil }
}
