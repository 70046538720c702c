import SurveyEngine
import SurveyJourney

/// `thresholds:` entries: the name says what is measured (`submit.p95`), the value how it is
/// judged (`"< 300ms"`); both are parsed here, once, into a `Threshold`. A threshold with
/// options is a block: its comparison under `check`, with `abort` and `after`.
extension PlanDecoder {
    /// `scope.metric: "comparison value"` entries, or `scope.metric:` blocks of `check`, `abort`
    /// and `after`, each parsed into a typed threshold.
    mutating func readThresholds(_ entry: PlanEntry, into plan: inout Plan) {
        var thresholds: [Threshold] = []
        for item in entries(entry.value, at: "thresholds") {
            let path = "thresholds.\(item.key)"
            let name = thresholdName(item)
            if case .mapping = item.value {
                if let (scope, metric) = name, let threshold = thresholdBlock(item, scope: scope, metric: metric, path: path) {
                    thresholds.append(threshold)
                }
                continue
            }
            guard let (scope, metric) = name else {
                // Still look at the value, so its own errors are reported too.
                _ = scalar(item.value, keyLocation: item.keyLocation, path: path, expected: "a comparison")
                continue
            }
            guard let s = scalar(item.value, keyLocation: item.keyLocation, path: path, expected: Self.comparisonExpected) else { continue }
            if let threshold = thresholdValue(s, scope: scope, metric: metric, path: path) {
                thresholds.append(threshold)
            }
        }
        plan.thresholds = thresholds
    }

    private static let comparisonExpected = "a comparison like \"< 300ms\" or \">= 95%\""

    /// `scope.metric:` with `check: "< 300ms"`, and optionally `abort: true` and `after: 30s`.
    private mutating func thresholdBlock(_ item: PlanEntry, scope: Threshold.Scope, metric: Threshold.Metric, path: String)
        -> Threshold?
    {
        var check: Threshold?
        var sawCheck = false
        var abort = false
        var after: (value: Duration, location: SourceLocation)?
        for option in entries(item.value, at: path, known: Threshold.optionKeys) {
            let optionPath = "\(path).\(option.key)"
            switch option.key {
            case "check":
                sawCheck = true
                if let s = scalar(option.value, keyLocation: option.keyLocation, path: optionPath, expected: Self.comparisonExpected) {
                    check = thresholdValue(s, scope: scope, metric: metric, path: path)
                }
            case "abort":
                abort = read(option, optionPath, .boolean) ?? false
            default:
                if let value = read(option, optionPath, .duration) { after = (value, option.keyLocation) }
            }
        }
        if !sawCheck {
            error("'\(path)' needs 'check': the comparison, such as check: \"< 300ms\"", at: item.keyLocation)
        }
        if let after, !abort {
            error("'after' needs 'abort: true': it is how long the run goes on before the threshold may stop it", at: after.location)
        }
        guard var threshold = check else { return nil }
        threshold.abort = abort
        threshold.abortAfter = after?.value ?? .zero
        return threshold
    }

    /// The scope and metric of a threshold's name. Any scope is taken here: whether it names a
    /// step of the plan's journey is checked once the journey is read (`checkThresholdScopes`).
    private mutating func thresholdName(_ item: PlanEntry) -> (Threshold.Scope, Threshold.Metric)? {
        let parts = item.key.split(separator: ".", maxSplits: 1).map(String.init)
        let metrics = Threshold.Metric.allCases.map(\.rawValue)
        guard parts.count == 2, !parts[0].isEmpty else {
            error("a threshold is named 'step.metric' such as 'submit.p95', found '\(item.key)'", at: item.keyLocation)
            return nil
        }
        let scope = Threshold.Scope(parts[0])
        let metricLocation = SourceLocation(
            origin: item.keyLocation.origin, line: item.keyLocation.line, column: item.keyLocation.column + parts[0].count + 1)
        guard let metric = Threshold.Metric(rawValue: parts[1]) else {
            let hint = Suggestions.closest(to: parts[1], in: metrics).map { " (did you mean '\($0)'?)" } ?? ""
            error("unknown threshold metric '\(parts[1])'\(hint); expected \(metrics.joined(separator: ", "))", at: metricLocation)
            return nil
        }
        guard metric.applies(to: scope) else {
            error("'\(metric.rawValue)' is measured for the whole survey: write 'survey.\(metric.rawValue)'", at: metricLocation)
            return nil
        }
        return (scope, metric)
    }

    private mutating func thresholdValue(_ s: PlanScalar, scope: Threshold.Scope, metric: Threshold.Metric, path: String) -> Threshold? {
        let text = s.source.trimmingSpaces()
        guard let comparison = Threshold.Comparison.allCases.first(where: { text.value.hasPrefix($0.rawValue) }) else {
            error("expected a comparison like \"< 300ms\" or \">= 95%\" for '\(path)', found '\(s.display)'", at: s.location)
            return nil
        }
        var limitScalar = s
        limitScalar.source = text.dropFirst(comparison.rawValue.unicodeScalars.count).trimmingSpaces()
        let limitText = limitScalar.text
        let limit: Double?
        switch metric.unit {
        case .latency:
            let kind = ValueKind<Double>(
                expected: "a latency like 300ms", summary: "latency", format: { "\($0)ms" }
            ) {
                text in
                if let ms = parseDecimal(text), ms >= 0 { return .value(ms) }
                switch parseDuration(text) {
                case .value(let d): return .value(d.milliseconds)
                case .wrongKind: return .wrongKind
                case .invalid(let reason), .invalidAt(let reason, _): return .invalid(reason)
                }
            }
            limit = parse(limitScalar, path, kind)
        case .ratio:
            limit = parse(limitScalar, path, .fraction)
        case .count:
            limit = parse(limitScalar, path, ValueKind<Double>.number.checked { $0 < 0 ? "a count cannot be negative" : nil })
        case .perSecond:
            let kind = ValueKind<Double>(expected: "a rate like 100/s", summary: "rate", format: { "\($0)/s" }) { text in
                if let n = parseDecimal(text) { return .value(n) }
                return ValueKind<Rate>.rate.parse(text).map(\.perSecond)
            }
            limit = parse(limitScalar, path, kind)
        }
        guard let limit else { return nil }
        return Threshold(scope: scope, metric: metric, comparison: comparison, limit: limit, limitText: limitText)
    }
}

extension PlanDecoder {
    /// Every threshold's scope is `survey` or a step of the plan's journey, each error at the
    /// threshold's name.
    mutating func checkThresholdScopes(_ plan: Plan) {
        guard let block = seen(.thresholds) else { return }
        let steps = plan.run.journey.names.map(\.name)
        let scopes = steps + [Threshold.Scope.surveyName]
        for item in entries(block.value, at: "thresholds") {
            let parts = item.key.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, !scopes.contains(parts[0]) else { continue }
            if plan.run.declaredJourney == nil, Journey.defaultSteps.contains(Step(parts[0])) {
                // A step of the default journey that this plan leaves out.
                error(
                    "a '\(parts[0]).…' threshold needs 'api.\(parts[0])': without it there is no \(parts[0]) to measure",
                    at: item.keyLocation)
                continue
            }
            let hint = Suggestions.closest(to: parts[0], in: scopes).map { " (did you mean '\($0)'?)" } ?? ""
            error(
                "unknown threshold scope '\(parts[0])'\(hint); expected a step of the journey (\(steps.joined(separator: ", "))) or "
                    + "'\(Threshold.Scope.surveyName)'", at: item.keyLocation)
        }
    }
}
