/// One way to show a diff of two reports; every format is one type in one file.
protocol DiffRenderer {
    /// The diff in this format; only JSON can fail, on a number that is not finite.
    static func render(_ diff: ReportDiff) throws(JSONEncodingError) -> String
}

/// The formats `survey-bot diff` writes.
enum DiffFormat: String, Sendable, Hashable, CaseIterable {
    case text, markdown, json

    var renderer: any DiffRenderer.Type {
        switch self {
        case .text: TextDiff.self
        case .markdown: MarkdownDiff.self
        case .json: JSONDiff.self
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
}
