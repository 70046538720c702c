import SurveyWire

extension Threshold {
    /// The threshold judged on a run's figures. A latency with no successful attempt behind it
    /// has no value (`no samples`), so it fails: the speed of refusals says nothing.
    func evaluate(_ figures: RunFigures) -> ThresholdResult {
        let actual = figures.value(metric, of: scope)
        return ThresholdResult(threshold: self, actual: actual, passed: actual.map(holds(actual:)) ?? false)
    }
}

/// A threshold with the value it was judged on: one line of a report's `thresholds`.
///
/// In JSON it is `{"name", "op", "limit", "actual", "passed", "text"}`; reading it back parses
/// the name and the operator into the typed threshold again, so a report naming a metric this
/// version does not know is refused when it is read, not when it is merged.
struct ThresholdResult: Codable, Sendable, Equatable {
    var threshold: Threshold
    /// In the metric's unit; nil when there was nothing to measure (no calls).
    var actual: Double?
    var passed: Bool

    init(threshold: Threshold, actual: Double?, passed: Bool) {
        self.threshold = threshold
        self.actual = actual
        self.passed = passed
    }

    private enum CodingKeys: String, CodingKey {
        case name, op, limit, actual, passed, text, implicit, abort
        case abortAfterS = "abort_after_s"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .name)
        let op = try container.decode(String.self, forKey: .op)
        let text = try container.decode(String.self, forKey: .text)
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, let metric = Threshold.Metric(rawValue: parts[1]) else {
            throw DecodingError.dataCorruptedError(forKey: .name, in: container, debugDescription: "unknown threshold '\(name)'")
        }
        guard let comparison = Threshold.Comparison(rawValue: op) else {
            throw DecodingError.dataCorruptedError(forKey: .op, in: container, debugDescription: "unknown comparison '\(op)'")
        }
        let prefix = "\(name) \(op) "
        threshold = Threshold(
            scope: Threshold.Scope(parts[0]), metric: metric, comparison: comparison,
            limit: try container.decode(Double.self, forKey: .limit),
            limitText: text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text,
            implicit: try container.decodeIfPresent(Bool.self, forKey: .implicit) ?? false)
        threshold.abort = try container.decodeIfPresent(Bool.self, forKey: .abort) ?? false
        if let after = try container.decodeIfPresent(Double.self, forKey: .abortAfterS), after.isFinite, after >= 0 {
            threshold.abortAfter = .nanoseconds(Int64(min(after, 1e9) * 1e9))
        }
        actual = try container.decodeIfPresent(Double.self, forKey: .actual)
        passed = try container.decode(Bool.self, forKey: .passed)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(threshold.name, forKey: .name)
        try container.encode(threshold.comparison.rawValue, forKey: .op)
        try container.encode(threshold.limit, forKey: .limit)
        // `null` when there was nothing to measure: a figure with no samples.
        try container.encode(actual, forKey: .actual)
        try container.encode(passed, forKey: .passed)
        try container.encode(threshold.description, forKey: .text)
        if threshold.implicit { try container.encode(true, forKey: .implicit) }
        if threshold.abort {
            try container.encode(true, forKey: .abort)
            if threshold.abortAfter > .zero { try container.encode(threshold.abortAfter.seconds, forKey: .abortAfterS) }
        }
    }
}
