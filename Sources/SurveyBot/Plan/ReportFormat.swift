/// The formats reports are written and shown in.
enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    case json, markdown, junit, text, csv, html, prometheus

    /// The file name extension of this format's reports.
    var fileExtension: String {
        switch self {
        case .json: "json"
        case .markdown: "md"
        case .junit: "xml"
        case .text: "txt"
        case .csv: "csv"
        case .html: "html"
        case .prometheus: "prom"
        }
    }

    /// Whether a run writes a timestamped file of this format beside its `latest` one. Not
    /// for Prometheus metrics: node_exporter's textfile collector reads every `.prom` file of
    /// its directory, and two runs' files would give it the same series twice.
    var keepsHistory: Bool { self != .prometheus }
}
