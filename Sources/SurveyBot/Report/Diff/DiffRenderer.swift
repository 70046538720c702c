/// One way to show a diff of two reports; every format is one type in one file.
protocol DiffRenderer {
    /// The diff in this format; only JSON can fail, on a number that is not finite.
    static func render(_ diff: ReportDiff) throws(JSONEncodingError) -> String
}

/// The formats `survey-bot diff` writes.
enum DiffFormat: String, Sendable, Hashable, CaseIterable {
    case text, markdown, json, html

    var renderer: any DiffRenderer.Type {
        switch self {
        case .text: TextDiff.self
        case .markdown: MarkdownDiff.self
        case .json: JSONDiff.self
        case .html: HTMLDiff.self
        }
    }

    /// The diff in this format.
    func render(_ diff: ReportDiff) throws(JSONEncodingError) -> String {
        try renderer.render(diff)
    }
}

extension ReportDiff.Row {
    /// The base or new value in its unit, or `–`.
    static func format(_ value: Double?, _ unit: ReportDiff.Unit) -> String {
        guard let value else { return "–" }
        switch unit {
        case .ms: return Readable.ms(value)
        case .ratio: return Readable.percent(value)
        case .perSecond: return Readable.perSecond((value * 10).rounded() / 10)
        case .count: return Readable.number(value)
        }
    }

    /// `1.8 ms [1.7, 1.9]`: a value with its interval, whose bounds are in the value's unit.
    static func format(_ value: Double?, interval: [Double]?, _ unit: ReportDiff.Unit) -> String {
        let text = format(value, unit)
        guard let interval, interval.count == 2 else { return text }
        let bound = { (bound: Double) in
            unit == .ratio ? Readable.number((bound * 1000).rounded() / 10) : Readable.number(bound)
        }
        return "\(text) [\(bound(interval[0])), \(bound(interval[1]))]"
    }

    var baseText: String { Self.format(base, interval: baseInterval, unit) }
    var newText: String { Self.format(new, interval: newInterval, unit) }

    /// `+0.7 ms (+30%)`: the change, signed, and its relative size where there is one.
    var changeText: String {
        guard let change else { return "–" }
        let sign = change > 0 ? "+" : change < 0 ? "−" : "±"
        let magnitude: String
        switch unit {
        case .ms: magnitude = Readable.ms(abs(change))
        case .ratio: magnitude = "\(Readable.number((abs(change) * 1000).rounded() / 10)) pp"
        case .perSecond: magnitude = Readable.perSecond((abs(change) * 10).rounded() / 10)
        case .count: magnitude = Readable.number(abs(change))
        }
        guard let percent = changePercent else { return sign + magnitude }
        let percentSign = percent > 0 ? "+" : percent < 0 ? "−" : "±"
        return "\(sign)\(magnitude) (\(percentSign)\(Readable.number(abs(percent)))%)"
    }

    /// `p=0.012`, `p<0.001`, or nothing for an untested figure.
    var pText: String? {
        guard let pValue else { return nil }
        guard pValue >= 0.001 else { return "p<0.001" }
        let thousandths = Int((pValue * 1000).rounded())
        return "p=\(thousandths / 1000).\(String(repeating: "0", count: 3 - String(thousandths % 1000).count))\(thousandths % 1000)"
    }

    /// Why a row is `~`, or how its change was judged: `within noise (p=0.41)`,
    /// `too few samples: needs 368, has 210`.
    var reasonText: String {
        let p = pText.map { " (\($0))" } ?? ""
        switch reason {
        case .withinNoise: return "within noise" + p
        case .withinTolerance: return "within tolerance" + p
        case .tooFewSamples:
            let has = Swift.min(baseSamples ?? 0, newSamples ?? 0)
            return "too few samples: needs \(minimumSamples.map(String.init) ?? "more"), has \(has)"
        case .notGated: return "not gated"
        case .toleranceOnly: return "tolerance only"
        case .significant: return pText ?? ""
        case nil: return ""
        }
    }

    /// The verdict as the text and Markdown tables show it: `~ within noise (p=0.41)`.
    var verdictText: String {
        switch verdict {
        case .same: "~ " + reasonText
        case .regressed: "regressed (\(reasonText))"
        case .improved: "improved (\(reasonText))"
        case .missing: "missing"
        case .added: "added"
        }
    }
}
