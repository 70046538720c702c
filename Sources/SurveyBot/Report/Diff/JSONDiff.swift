import Foundation

/// A diff as JSON, for scripts: both paths, the regression count and every row.
enum JSONDiff: DiffRenderer {
    private struct Document: Encodable {
        var base: String
        var new: String
        var regressions: Int
        var rows: [ReportDiff.Row]
    }

    static func render(_ diff: ReportDiff) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = Document(base: diff.basePath, new: diff.newPath, regressions: diff.regressions.count, rows: diff.rows)
        let data = (try? encoder.encode(document)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
