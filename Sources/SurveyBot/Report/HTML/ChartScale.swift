import Foundation

/// Axis ticks at "nice" values: steps of 1, 2 or 5 times a power of ten (Heckbert's labels),
/// so that a reader can interpolate between them.
enum NiceTicks {
    /// The step of 1, 2 or 5 × 10ⁿ that cuts `0 ... span` into about `count` parts or fewer.
    static func step(span: Double, count: Int) -> Double {
        guard span.isFinite, span > 0, count > 0 else { return 1 }
        let raw = span / Double(count)
        let power = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * power >= raw * (1 - 1e-9) { return factor * power }
        return 10 * power
    }

    /// Ticks covering `low ... high`: the first at or below `low`, the last at or above `high`,
    /// at most `count + 1` of them, all multiples of the step. A flat or empty range gets the
    /// ticks of `0 ... 1` (or of `0 ... high` when only `low` is missing).
    static func ticks(low: Double, high: Double, count: Int = 5) -> [Double] {
        var low = low.isFinite ? low : 0
        var high = high.isFinite ? high : 1
        if high < low { swap(&low, &high) }
        if high - low <= 0 {
            if high == 0 {
                high = 1
            } else {
                low = Swift.min(0, low)
                high = Swift.max(0, high)
                if high == low { high = low + 1 }
            }
        }
        let step = step(span: high - low, count: count)
        let first = (low / step).rounded(.down)
        let last = (high / step - 1e-9).rounded(.up)
        return stride(from: first, through: last, by: 1).map { clean($0 * step) }
    }

    /// Ticks of a logarithmic axis covering `low ... high` (both > 0): the powers of ten, with
    /// 2 and 5 between them when the range spans under 2.5 decades; from the last tick at or
    /// below `low` to the first at or above `high`.
    static func logTicks(low: Double, high: Double) -> [Double] {
        let low = low.isFinite && low > 0 ? low : 1
        let high = high.isFinite && high > low ? high : low * 10
        let first = Int(log10(low).rounded(.down))
        let last = Int(log10(high).rounded(.up))
        let factors: [Double] = log10(high / low) < 2.5 ? [1, 2, 5] : [1]
        let candidates = (first...last).flatMap { power in factors.map { clean($0 * pow(10, Double(power))) } }
        let start = candidates.lastIndex { $0 <= low * 1.000001 } ?? 0
        let end = candidates.firstIndex { $0 >= high / 1.000001 } ?? candidates.count - 1
        return Array(candidates[start...max(start, end)])
    }

    /// A multiple of a step without the float noise of the multiplication (0.30000000000000004).
    static func clean(_ value: Double) -> Double {
        guard value != 0 else { return 0 }
        let digits = 12 - Int(log10(abs(value)).rounded(.up))
        let scale = pow(10, Double(max(0, min(digits, 15))))
        return (value * scale).rounded() / scale
    }

    /// A tick's label: as few decimals as the ticks need, thousands as `k`, with `unit`.
    static func label(_ value: Double, unit: String = "") -> String {
        let text: String
        if abs(value) >= 10_000 {
            text = Readable.number(clean(value / 1000)) + "k"
        } else {
            text = Readable.number(clean(value))
        }
        return unit.isEmpty ? text : "\(text) \(unit)"
    }
}

/// Maps values of a domain to positions on the page, linearly or by their logarithm.
struct ChartScale {
    enum Kind { case linear, log }

    var kind: Kind
    var domain: (low: Double, high: Double)
    var range: (low: Double, high: Double)

    init(_ kind: Kind = .linear, domain: (Double, Double), range: (Double, Double)) {
        self.kind = kind
        self.domain = domain
        self.range = range
    }

    /// The position of `value`; values outside the domain map outside the range. A log scale
    /// maps values ≤ 0 to the range's low end. Never NaN: an empty domain maps to the middle.
    func position(_ value: Double) -> Double {
        let (low, high, x): (Double, Double, Double)
        switch kind {
        case .linear: (low, high, x) = (domain.low, domain.high, value)
        case .log:
            guard value > 0, domain.low > 0, domain.high > 0 else { return range.low }
            (low, high, x) = (log10(domain.low), log10(domain.high), log10(value))
        }
        guard high - low > 0, x.isFinite else { return (range.low + range.high) / 2 }
        return range.low + (x - low) / (high - low) * (range.high - range.low)
    }
}

/// SVG path data.
enum SVGPath {
    /// A line through the points, broken where a point is missing (an interval with no
    /// attempts leaves a gap, not a drop to 0). A point alone between gaps is a dash 6 px wide,
    /// so that it shows. Coordinates to 0.1 px.
    static func line(_ points: [(x: Double, y: Double)?]) -> String {
        var parts: [String] = []
        var previous: (x: Double, y: Double)?
        for (index, point) in points.enumerated() {
            guard let point else {
                previous = nil
                continue
            }
            let next = index + 1 < points.count ? points[index + 1] : nil
            if previous == nil && next == nil {
                parts.append("M\(coordinate(point.x - 3)) \(coordinate(point.y)) h6")
            } else if previous == nil {
                parts.append("M\(coordinate(point.x)) \(coordinate(point.y))")
            } else {
                parts.append("L\(coordinate(point.x)) \(coordinate(point.y))")
            }
            previous = point
        }
        return parts.joined(separator: " ")
    }

    /// Bars standing on `baseline`, one rectangle each, as one path.
    static func bars(_ bars: [(x0: Double, x1: Double, y: Double)], baseline: Double) -> String {
        bars.map { bar in
            let width = max(bar.x1 - bar.x0, 0.5)
            return "M\(coordinate(bar.x0)) \(coordinate(baseline)) V\(coordinate(bar.y)) h\(coordinate(width)) V\(coordinate(baseline)) Z"
        }.joined(separator: " ")
    }

    /// A coordinate to 0.1 px, without a trailing `.0`; never NaN (0 instead).
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
