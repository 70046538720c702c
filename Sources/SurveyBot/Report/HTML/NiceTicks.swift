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
        // Beyond what a double can step through (a span of 1e308): the ends alone.
        guard first.isFinite, last.isFinite, last - first <= Double(count + 2) else { return [low, high] }
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
