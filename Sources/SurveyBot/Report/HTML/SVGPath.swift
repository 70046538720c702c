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
