/// One way to show a run's report. Every format is one type in one file that renders the
/// JSON report alone, so an old run can be rendered again in any format (`survey-bot report`).
protocol ReportRenderer {
    /// The report in this format; only JSON can fail, on a number that is not finite.
    static func render(_ report: RunReport) throws(JSONEncodingError) -> String
}

/// How each format is rendered.
extension ReportFormat {
    var renderer: any ReportRenderer.Type {
        switch self {
        case .json: JSONReport.self
        case .markdown: MarkdownReport.self
        case .junit: JUnitReport.self
        case .text: TextReport.self
        case .csv: CSVReport.self
        case .html: HTMLReport.self
        case .prometheus: PrometheusReport.self
        }
    }

    /// The report in this format.
    func render(_ report: RunReport) throws(JSONEncodingError) -> String {
        try renderer.render(report)
    }
}

/// The JSON report, the source of truth: `RunReport.jsonText()`.
enum JSONReport: ReportRenderer {
    static func render(_ report: RunReport) throws(JSONEncodingError) -> String {
        try report.jsonText()
    }
}
