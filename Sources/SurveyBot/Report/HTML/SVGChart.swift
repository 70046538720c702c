import Foundation
import SurveyEngine
import SurveyMetrics

/// A value of a chart over the span of x it was measured over (an interval of a timeline, from
/// its start to its end; a bin of a distribution); nil where there is none.
struct ChartPoint: Equatable {
    var from: Double
    var to: Double
    var y: Double?

    init(from: Double, to: Double, y: Double?) {
        self.from = from
        self.to = to
        self.y = y
    }
}

/// One line of a chart: a name for the legend, a colour of the palette, and its values, each
/// over its span of x.
struct ChartSeries {
    var name: String
    /// The palette colour, `s0` … `s7` in the page's CSS.
    var colour: Int
    /// Drawn dashed: the base run in a diff.
    var dashed = false
    var points: [ChartPoint]
}

/// A step chart as inline SVG: each value drawn level over the span it was measured over (a
/// rate over the time its interval covered, not a line between the middles of intervals of
/// different lengths), nice ticks with units on both axes, grid lines, one path per series
/// (class `data`), a marker on a value without neighbours, and for each span a transparent band
/// whose `<title>` the browser shows as a tooltip, listing every series' value there. Sized by
/// its `viewBox`, so it scales with the page; the legend is HTML above it, where labels flow
/// and cannot overlap.
struct LineChart {
    var title: String
    /// The unit of the y axis: `ms`, `/s`, or none.
    var yUnit: String
    var series: [ChartSeries]
    /// A logarithmic x axis (latency distributions) instead of seconds from the start.
    var logX = false
    var xUnit = "s"
    /// Where a linear x axis ends: the end of the longest run, so that every chart of a run
    /// spans the same seconds, whichever intervals its series have values in, and no chart
    /// runs past the run's end.
    var xEnd: Double?
    /// How a value reads in a tooltip.
    var format: (Double) -> String = { Readable.number($0) }

    static let width = 640.0
    static let height = 220.0
    static let margin = (left: 58.0, right: 28.0, top: 10.0, bottom: 30.0)
    /// The radius of the marker of a value without neighbours.
    static let markerRadius = 3.0

    /// Whether any series has a value to draw.
    var hasData: Bool { series.contains { $0.points.contains { $0.y != nil } } }

    /// The x axis's domain, and its ticks: a linear axis from 0 to its end (`xEnd`, or the last
    /// value's), with ticks inside it; a log axis from the tick below the first value to the
    /// tick above the last.
    var xAxis: (domain: (Double, Double), ticks: [Double]) {
        let drawn = series.flatMap { $0.points.filter { $0.y != nil } }
        if logX {
            let ticks = NiceTicks.logTicks(low: drawn.map(\.from).min() ?? 1, high: drawn.map(\.to).max() ?? 10)
            return ((ticks.first ?? 1, ticks.last ?? 10), ticks)
        }
        let end = xEnd ?? drawn.map(\.to).max() ?? 1
        let high = end.isFinite && end > 0 ? end : 1
        let ticks = NiceTicks.ticks(low: 0, high: high, count: 6).filter { $0 <= high * (1 + 1e-9) }
        return ((0, high), ticks)
    }

    /// The y ticks: from 0 to the highest value.
    var yTicks: [Double] {
        NiceTicks.ticks(low: 0, high: series.flatMap { $0.points.compactMap(\.y) }.max() ?? 1, count: 4)
    }

    /// The chart: a `<figure>` with its title, legend and SVG.
    func html() -> String {
        let (domain, xTicks) = xAxis
        let yTicks = yTicks
        let margin = Self.margin
        let plot = (left: margin.left, right: Self.width - margin.right, top: margin.top, bottom: Self.height - margin.bottom)
        let x = ChartScale(logX ? .log : .linear, domain: domain, range: (plot.left, plot.right))
        let y = ChartScale(domain: (yTicks.first ?? 0, yTicks.last ?? 1), range: (plot.bottom, plot.top))
        var svg: [String] = []
        svg.append(
            "<svg class=\"chart\" viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" role=\"img\" aria-label=\"\(XMLText.escape(title))\">"
        )
        for tick in yTicks {
            let position = SVGPath.coordinate(y.position(tick))
            svg.append("<line class=\"grid\" x1=\"\(plot.left)\" x2=\"\(plot.right)\" y1=\"\(position)\" y2=\"\(position)\"/>")
            svg.append(
                "<text class=\"tick\" x=\"\(plot.left - 6)\" y=\"\(position)\" text-anchor=\"end\" dominant-baseline=\"middle\">"
                    + "\(XMLText.escape(NiceTicks.label(tick, unit: yUnit)))</text>")
        }
        for tick in xTicks {
            let position = SVGPath.coordinate(x.position(tick))
            svg.append("<line class=\"axis\" x1=\"\(position)\" x2=\"\(position)\" y1=\"\(plot.bottom)\" y2=\"\(plot.bottom + 4)\"/>")
            svg.append(
                "<text class=\"tick\" x=\"\(position)\" y=\"\(plot.bottom + 18)\" text-anchor=\"middle\">"
                    + "\(XMLText.escape(NiceTicks.label(tick, unit: xUnit)))</text>")
        }
        svg.append("<line class=\"axis\" x1=\"\(plot.left)\" x2=\"\(plot.right)\" y1=\"\(plot.bottom)\" y2=\"\(plot.bottom)\"/>")
        for line in series {
            let points = line.points.map { point in point.y.map { (x.position(point.from), x.position(point.to), y.position($0)) } }
            let title = "<title>\(XMLText.escape(line.name))</title>"
            let path = SVGPath.steps(points)
            if !path.isEmpty {
                svg.append("<path class=\"data s\(line.colour)\(line.dashed ? " dashed" : "")\" d=\"\(path)\">\(title)</path>")
            }
            let markers = SVGPath.markers(points, radius: Self.markerRadius)
            if !markers.isEmpty {
                svg.append("<path class=\"data marker s\(line.colour)\" d=\"\(markers)\">\(title)</path>")
            }
        }
        svg.append(contentsOf: bands(x: x, plot: plot))
        svg.append("</svg>")
        let legend = series.map { line in
            "<li><span class=\"swatch s\(line.colour)\(line.dashed ? " dashed" : "")\"></span>\(XMLText.escape(line.name))</li>"
        }
        return "<figure class=\"chart\"><figcaption>\(XMLText.escape(title))</figcaption>"
            + "<ul class=\"legend\">\(legend.joined())</ul>\n\(svg.joined(separator: "\n"))\n</figure>"
    }

    /// A transparent band between each two neighbouring edges of the series' spans, whose title
    /// lists every series' value there: the tooltip, with no script. In a diff the two runs'
    /// intervals cut each other into narrower bands, each naming both values.
    private func bands(x: ChartScale, plot: (left: Double, right: Double, top: Double, bottom: Double)) -> [String] {
        let edges = Set(series.flatMap { $0.points.filter { $0.y != nil }.flatMap { [$0.from, $0.to] } }).sorted()
        guard edges.count >= 2 else { return [] }
        // Each series' values are in order of x: a cursor per series walks them with the bands.
        var cursors = Array(repeating: 0, count: series.count)
        return zip(edges, edges.dropFirst()).compactMap { from, to -> String? in
            let middle = (from + to) / 2
            let values = series.indices.compactMap { index -> String? in
                let points = series[index].points
                while cursors[index] < points.count && points[cursors[index]].to <= middle { cursors[index] += 1 }
                guard cursors[index] < points.count, points[cursors[index]].from <= middle else { return nil }
                return "\(series[index].name): \(points[cursors[index]].y.map(format) ?? "–")"
            }
            guard !values.isEmpty else { return nil }
            let left = max(plot.left, x.position(from))
            let right = min(plot.right, x.position(to))
            let heading = "\(Readable.number(from))–\(Readable.number(to)) \(xUnit)"
            let text = ([heading] + values).joined(separator: "\n")
            return
                "<rect class=\"band\" x=\"\(SVGPath.coordinate(left))\" y=\"\(plot.top)\" width=\"\(SVGPath.coordinate(max(right - left, 1)))\" "
                + "height=\"\(plot.bottom - plot.top)\"><title>\(XMLText.escape(text))</title></rect>"
        }
    }
}

extension LineChart {
    /// The distribution of a histogram's values on a log scale: the share of values (%) in
    /// each of 10 bins per decade of milliseconds, each over its bin.
    static func distribution(_ histogram: Histogram) -> [ChartPoint] {
        guard histogram.count > 0 else { return [] }
        var bins: [Int: UInt64] = [:]
        for bucket in histogram.buckets {
            let ms = Double(histogram.representative(of: bucket)) / 1e6
            guard ms > 0 else { continue }
            bins[Int((log10(ms) * 10).rounded(.down)), default: 0] += bucket.count
        }
        guard let low = bins.keys.min(), let high = bins.keys.max() else { return [] }
        return (low...high).map { bin in
            ChartPoint(
                from: pow(10, Double(bin) / 10), to: pow(10, Double(bin + 1) / 10),
                y: Double(bins[bin] ?? 0) / Double(histogram.count) * 100)
        }
    }
}
