import Foundation

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
