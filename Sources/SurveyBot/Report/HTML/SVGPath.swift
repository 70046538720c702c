/// SVG path data.
enum SVGPath {
    /// Each value level over its span, neighbours joined (a step line), broken where a value
    /// is missing: an interval with no attempts leaves a gap, not a drop to 0. Coordinates to
    /// 0.1 px.
    static func steps(_ points: [(from: Double, to: Double, y: Double)?]) -> String {
        var parts: [String] = []
        var previous: (from: Double, to: Double, y: Double)?
        for point in points {
            guard let point else {
                previous = nil
                continue
            }
            parts.append(
                previous == nil ? "M\(coordinate(point.from)) \(coordinate(point.y))" : "L\(coordinate(point.from)) \(coordinate(point.y))")
            parts.append("L\(coordinate(point.to)) \(coordinate(point.y))")
            previous = point
        }
        return parts.joined(separator: " ")
    }

    /// A dot of `radius` in the middle of each value without a neighbour on either side, which
    /// a step line alone could draw too short to see (an interval a few milliseconds long) or
    /// not at all; as one path of circles.
    static func markers(_ points: [(from: Double, to: Double, y: Double)?], radius: Double) -> String {
        points.indices.compactMap { index -> String? in
            guard let point = points[index] else { return nil }
            let alone = (index == 0 || points[index - 1] == nil) && (index + 1 == points.count || points[index + 1] == nil)
            guard alone else { return nil }
            let r = coordinate(radius)
            let d = coordinate(2 * radius)
            return
                "M\(coordinate((point.from + point.to) / 2 - radius)) \(coordinate(point.y)) a\(r) \(r) 0 1 0 \(d) 0 a\(r) \(r) 0 1 0 -\(d) 0"
        }.joined(separator: " ")
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
