/// How figures read in every report format: milliseconds, percentages, plain numbers, rates.
enum Readable {
    /// `3.2 ms`, `250 ms` (whole from 100 up).
    static func ms(_ value: Double) -> String {
        value >= 100 && value < 1e15 ? "\(Int(value.rounded())) ms" : "\(number(value)) ms"
    }

    /// A latency that may be undefined (no attempts): `–` then.
    static func ms(_ value: Double?) -> String {
        value.map(ms) ?? "–"
    }

    /// A number with at most 3 significant decimals, no trailing zeros.
    static func number(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 { return String(Int(value)) }
        let digits = abs(value) >= 10 ? 1 : abs(value) >= 1 ? 2 : 3
        var text = String(value.formattedDecimals(digits))
        while text.contains(".") && (text.hasSuffix("0") || text.hasSuffix(".")) { text.removeLast() }
        return text
    }

    /// `0.2` → `20%`, `0.125` → `12.5%`.
    static func percent(_ fraction: Double) -> String {
        let percent = (fraction * 1000).rounded() / 10
        return percent == percent.rounded() ? "\(Int(percent))%" : "\(percent)%"
    }

    /// A rate that may be undefined (no calls): `–` then.
    static func percent(_ fraction: Double?) -> String {
        fraction.map(percent) ?? "–"
    }

    /// `100/s`.
    static func perSecond(_ value: Double) -> String {
        "\(number(value))/s"
    }

    /// One character per value, from ▁ to █, scaled to the highest; a blank where there is no
    /// value (never ▁, which reads as a low one).
    static func sparkline(_ values: [Double?]) -> String {
        let bars = Array("▁▂▃▄▅▆▇█")
        let top = values.compactMap { $0 }.filter(\.isFinite).max() ?? 0
        return String(
            values.map { value in
                guard let value, value.isFinite else { return " " }
                return top > 0 ? bars[min(bars.count - 1, max(0, Int(value / top * Double(bars.count - 1))))] : bars[0]
            })
    }

    /// One character per value, from ▁ to █.
    static func sparkline(_ values: [Int]) -> String {
        let bars = Array("▁▂▃▄▅▆▇█")
        let top = max(values.max() ?? 0, 1)
        return String(values.map { bars[min(bars.count - 1, max(0, $0) * (bars.count - 1) / top)] })
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
