import Foundation

/// The frame of an HTML report: one self-contained XHTML-compatible page — inline CSS, inline
/// SVG, no script, nothing fetched — that opens offline from a CI artifact and reads in light
/// and dark colour schemes (`prefers-color-scheme`).
enum HTMLPage {
    /// A whole page with `title` and `body`. A `notice` (a partial merge) is a comment on the
    /// first line, before the doctype, where HTML and XML both allow one, so that `head -1`
    /// says so like every other format's first line. `style` is CSS added after the report's,
    /// `script` a script run once the body is read (the live page's only).
    static func document(title: String, body: String, notice: String? = nil, style: String = "", script: String = "") -> String {
        let first = notice.map { "<!-- \(XMLText.escape($0).replacingOccurrences(of: "--", with: "- -")) -->\n" } ?? ""
        return first + """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta name="color-scheme" content="light dark"/>
            <title>\(XMLText.escape(title))</title>
            <style>
            \(css)\(style.isEmpty ? "" : "\n" + style)
            </style>
            </head>
            <body>
            \(body)\(script.isEmpty ? "" : "\n<script>\n" + script + "\n</script>")
            </body>
            </html>

            """
    }

    /// Text with the emoji of the Markdown report as marks every font has: ✓, ✗, ⚠.
    static func marks(_ text: String) -> String {
        text.replacingOccurrences(of: "✅", with: "✓").replacingOccurrences(of: "❌", with: "✗")
            .replacingOccurrences(of: "⚠️", with: "⚠").replacingOccurrences(of: "➕", with: "+")
    }

    /// A table: a header row and rows of cells (already escaped HTML). Numeric columns are
    /// right-aligned by `numeric`. `groups` (title and how many columns, left to right; an
    /// empty title spans columns without one) is a row above the header that names groups of
    /// columns.
    static func table(
        _ header: [String], _ rows: [[String]], numeric: Set<Int> = [], rowClasses: [String?] = [],
        groups: [(title: String, columns: Int)] = []
    ) -> String {
        func cells(_ row: [String], tag: String) -> String {
            row.enumerated().map { index, cell in
                "<\(tag)\(numeric.contains(index) ? " class=\"num\"" : "")>\(cell)</\(tag)>"
            }.joined()
        }
        var html = "<table><thead>"
        if !groups.isEmpty {
            html +=
                "<tr>"
                + groups.map { group in
                    "<th colspan=\"\(group.columns)\"\(group.title.isEmpty ? "" : " class=\"group\"")>\(XMLText.escape(group.title))</th>"
                }.joined() + "</tr>"
        }
        html += "<tr>\(cells(header.map(XMLText.escape), tag: "th"))</tr></thead><tbody>"
        for (index, row) in rows.enumerated() {
            let rowClass = index < rowClasses.count ? rowClasses[index].map { " class=\"\($0)\"" } ?? "" : ""
            html += "<tr\(rowClass)>\(cells(row, tag: "td"))</tr>"
        }
        return html + "</tbody></table>"
    }

    /// Light colours, then dark ones; the palette (Okabe–Ito) stays apart for colour-blind readers.
    static let css = """
        :root { --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --grid: #d8dee4; --card: #f6f8fa;
          --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700;
          --s0: #0072b2; --s1: #d55e00; --s2: #009e73; --s3: #cc79a7; --s4: #e69f00; --s5: #56b4e9; --s6: #7f7f7f; --s7: #000000; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --grid: #30363d; --card: #161b22;
            --ok: #3fb950; --bad: #f85149; --warn: #d29922;
            --s0: #58a6ff; --s1: #ff8c42; --s2: #3fd0a0; --s3: #e39ad0; --s4: #f2c14e; --s5: #9fd8ff; --s6: #b0b0b0; --s7: #ffffff; }
        }
        * { box-sizing: border-box; }
        body { margin: 0 auto; max-width: 1360px; padding: 24px; background: var(--bg); color: var(--fg);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 10px; }
        .meta { color: var(--muted); margin: 0 0 16px; }
        .verdict { display: inline-block; padding: 6px 12px; border-radius: 6px; font-weight: 600; margin: 4px 0 12px; }
        .verdict.ok { background: color-mix(in srgb, var(--ok) 15%, transparent); color: var(--ok); }
        .verdict.bad { background: color-mix(in srgb, var(--bad) 15%, transparent); color: var(--bad); }
        .verdict.warn { background: color-mix(in srgb, var(--warn) 15%, transparent); color: var(--warn); }
        table { border-collapse: collapse; margin: 8px 0 16px; }
        th, td { padding: 4px 10px; border-bottom: 1px solid var(--grid); text-align: left; vertical-align: top; }
        th { color: var(--muted); font-weight: 600; }
        th.group { text-align: center; font-weight: 500; border-bottom: 1px solid var(--muted); }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
        tr.passed td:last-child, .ok-text { color: var(--ok); }
        tr.failed td, tr.regressed td { color: var(--bad); }
        tr.improved td:last-child { color: var(--ok); }
        .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 16px; }
        figure.chart { margin: 0; padding: 10px 12px; background: var(--card); border-radius: 8px; }
        figure.chart.regressed { outline: 2px solid var(--bad); }
        figcaption { font-weight: 600; }
        ul.legend { list-style: none; margin: 4px 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px;
          color: var(--muted); font-size: 12px; }
        .swatch { display: inline-block; width: 16px; height: 3px; margin-right: 6px; vertical-align: middle; }
        .swatch.dashed { background-image: linear-gradient(90deg, transparent 60%, var(--card) 60%); background-size: 6px 3px; }
        svg.chart { width: 100%; height: auto; display: block; }
        svg .grid { stroke: var(--grid); stroke-width: 1; }
        svg .axis { stroke: var(--muted); stroke-width: 1; }
        svg .tick { fill: var(--muted); font-size: 11px; }
        svg .data { fill: none; stroke-width: 1.8; stroke-linejoin: round; stroke-linecap: round; }
        svg .data.dashed { stroke-dasharray: 6 4; }
        svg .data.marker { stroke-width: 1; }
        svg .band { fill: transparent; }
        svg .band:hover { fill: var(--grid); fill-opacity: 0.35; }
        svg .s0 { stroke: var(--s0); } svg .s1 { stroke: var(--s1); } svg .s2 { stroke: var(--s2); } svg .s3 { stroke: var(--s3); }
        svg .s4 { stroke: var(--s4); } svg .s5 { stroke: var(--s5); } svg .s6 { stroke: var(--s6); } svg .s7 { stroke: var(--s7); }
        svg .marker.s0 { fill: var(--s0); } svg .marker.s1 { fill: var(--s1); } svg .marker.s2 { fill: var(--s2); }
        svg .marker.s3 { fill: var(--s3); } svg .marker.s4 { fill: var(--s4); } svg .marker.s5 { fill: var(--s5); }
        svg .marker.s6 { fill: var(--s6); } svg .marker.s7 { fill: var(--s7); }
        .swatch.s0 { background-color: var(--s0); } .swatch.s1 { background-color: var(--s1); } .swatch.s2 { background-color: var(--s2); }
        .swatch.s3 { background-color: var(--s3); } .swatch.s4 { background-color: var(--s4); } .swatch.s5 { background-color: var(--s5); }
        .swatch.s6 { background-color: var(--s6); } .swatch.s7 { background-color: var(--s7); }
        .note { color: var(--muted); }
        code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
        """
}
