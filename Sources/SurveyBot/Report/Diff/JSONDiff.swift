import Foundation

/// A diff as JSON, for scripts: both paths, the confidence and default tolerance, the
/// regression count and every row with its intervals, p-value, verdict and reason.
enum JSONDiff: DiffRenderer {
    private struct Document: Encodable {
        var base: String
        var new: String
        var confidence: Double
        var tolerance: Double
        var regressions: Int
        var tooFewSamples: Int
        var rows: [ReportDiff.Row]

        enum CodingKeys: String, CodingKey {
            case base, new, confidence, tolerance, regressions, rows
            case tooFewSamples = "too_few_samples"
        }
    }

    static func render(_ diff: ReportDiff) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let document = Document(
            base: diff.basePath, new: diff.newPath, confidence: diff.confidence, tolerance: diff.tolerances.default,
            regressions: diff.regressions.count, tooFewSamples: diff.tooFewSamples.count, rows: diff.rows)
        let data = (try? encoder.encode(document)) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
