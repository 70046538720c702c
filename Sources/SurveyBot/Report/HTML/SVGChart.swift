import Foundation
import SurveyEngine

/// One line of a chart: a name for the legend, a colour of the palette, and a value (or none)
/// at each x.
struct ChartSeries {
    var name: String
    /// The palette colour, `s0` … `s7` in the page's CSS.
    var colour: Int
    /// Drawn dashed: the base run in a diff.
    var dashed = false
    var points: [(x: Double, y: Double?)]
}

/// A line chart as inline SVG: nice ticks with units on both axes, grid lines, one path per
/// series (class `data`), and for each x a transparent band whose `<title>` the browser shows
/// as a tooltip, listing every series' value there. Sized by its `viewBox`, so it scales
/// with the page; the legend is HTML above it, where labels flow and cannot overlap.
struct LineChart {
    var title: String
    /// The unit of the y axis: `ms`, `/s`, or none.
    var yUnit: String
    var series: [ChartSeries]
    /// A logarithmic x axis (latency distributions) instead of seconds from the start.
    var logX = false
    var xUnit = "s"
    /// The least the x axis reaches (a linear one): the timeline's end, so that every chart of a
    /// run spans the same seconds, whichever intervals its series have points in.
    var xEnd: Double?
    /// How a value reads in a tooltip.
    var format: (Double) -> String = { Readable.number($0) }

    static let width = 640.0
    static let height = 220.0
    static let margin = (left: 58.0, right: 28.0, top: 10.0, bottom: 30.0)

    /// Whether any series has a value to draw.
    var hasData: Bool { series.contains { $0.points.contains { $0.y != nil } } }

    /// The x and y ticks the chart shows.
    var ticks: (x: [Double], y: [Double]) {
        let xs = series.flatMap { $0.points.filter { $0.y != nil }.map(\.x) }
        let ys = series.flatMap { $0.points.compactMap(\.y) }
        let x =
            logX
            ? NiceTicks.logTicks(low: xs.min() ?? 1, high: xs.max() ?? 10)
            : NiceTicks.ticks(low: min(0, xs.min() ?? 0), high: max(xs.max() ?? 1, xEnd ?? 0), count: 6)
        let y = NiceTicks.ticks(low: 0, high: ys.max() ?? 1, count: 4)
        return (x, y)
    }

    /// The chart: a `<figure>` with its title, legend and SVG.
    func html() -> String {
        let (xTicks, yTicks) = ticks
        let margin = Self.margin
        let plot = (left: margin.left, right: Self.width - margin.right, top: margin.top, bottom: Self.height - margin.bottom)
        let x = ChartScale(
            logX ? .log : .linear, domain: (xTicks.first ?? 0, xTicks.last ?? 1), range: (plot.left, plot.right))
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
            let path = SVGPath.line(line.points.map { point in point.y.map { (x.position(point.x), y.position($0)) } })
            guard !path.isEmpty else { continue }
            svg.append(
                "<path class=\"data s\(line.colour)\(line.dashed ? " dashed" : "")\" d=\"\(path)\"><title>\(XMLText.escape(line.name))</title></path>"
            )
        }
        svg.append(contentsOf: bands(x: x, plot: plot))
        svg.append("</svg>")
        let legend = series.map { line in
            "<li><span class=\"swatch s\(line.colour)\(line.dashed ? " dashed" : "")\"></span>\(XMLText.escape(line.name))</li>"
        }
        return "<figure class=\"chart\"><figcaption>\(XMLText.escape(title))</figcaption>"
            + "<ul class=\"legend\">\(legend.joined())</ul>\n\(svg.joined(separator: "\n"))\n</figure>"
    }

    /// For each x, a transparent band as wide as the space to its neighbours, whose title lists
    /// every series' value there: the tooltip, with no script.
    private func bands(x: ChartScale, plot: (left: Double, right: Double, top: Double, bottom: Double)) -> [String] {
        var values: [Double: [String]] = [:]
        for line in series {
            var seen = Set<Double>()
            for point in line.points where seen.insert(point.x).inserted {
                values[point.x, default: []].append("\(line.name): \(point.y.map(format) ?? "–")")
            }
        }
        let xs = values.keys.sorted()
        return xs.indices.map { index in
            let here = x.position(xs[index])
            let left = index > 0 ? (x.position(xs[index - 1]) + here) / 2 : max(plot.left, here - 4)
            let right = index + 1 < xs.count ? (x.position(xs[index + 1]) + here) / 2 : min(plot.right, here + 4)
            let heading = NiceTicks.label(xs[index], unit: xUnit)
            let text = ([heading] + (values[xs[index]] ?? [])).joined(separator: "\n")
            return
                "<rect class=\"band\" x=\"\(SVGPath.coordinate(left))\" y=\"\(plot.top)\" width=\"\(SVGPath.coordinate(max(right - left, 1)))\" "
                + "height=\"\(plot.bottom - plot.top)\"><title>\(XMLText.escape(text))</title></rect>"
        }
    }
}

extension LineChart {
    /// The distribution of a histogram's values on a log scale: the share of values (%) in
    /// each of 10 bins per decade of milliseconds, as a step line.
    static func distribution(_ histogram: Histogram) -> [(x: Double, y: Double?)] {
        guard histogram.count > 0 else { return [] }
        var bins: [Int: UInt64] = [:]
        for bucket in histogram.buckets {
            let ms = Double(histogram.representative(of: bucket)) / 1e6
            guard ms > 0 else { continue }
            bins[Int((log10(ms) * 10).rounded(.down)), default: 0] += bucket.count
        }
        guard let low = bins.keys.min(), let high = bins.keys.max() else { return [] }
        var points: [(x: Double, y: Double?)] = []
        for bin in low...high {
            let share = Double(bins[bin] ?? 0) / Double(histogram.count) * 100
            points.append((pow(10, Double(bin) / 10), share))
            points.append((pow(10, Double(bin + 1) / 10), share))
        }
        return points
    }
}
