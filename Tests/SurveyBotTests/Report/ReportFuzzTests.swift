import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// Seeded mutations of a valid report fed to `report`, `diff` (every format) and `merge`:
/// truncation, numbers swapped for huge, negative, non-finite or wrongly typed values, deleted
/// and duplicated lines, byte flips, and the timeline's own: its values, its interval, its
/// start decades away, points duplicated or dropped. Never a crash; a file that is not a valid
/// report is always exit 2 naming the file.
///
/// `swift test` runs a slice; `SURVEY_BOT_FUZZ_REPORTS=10000` (bench/fuzz.sh) the full size.
@Suite struct ReportFuzzTests {
    /// The formats `report` renders each mutant in: every one a person or a CI reads.
    static let reportFormats: [ReportFormat] = [.markdown, .html, .csv, .text, .junit, .prometheus]

    static var cases: Int { Int(ProcessInfo.processInfo.environment["SURVEY_BOT_FUZZ_REPORTS"] ?? "") ?? 300 }

    /// The document from its `"timeline"` member on (what a timeline mutation changes).
    static func timelinePart(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        let key = Array(#""timeline" : {"#.utf8)
        guard bytes.count >= key.count,
            let at = (0...(bytes.count - key.count)).first(where: { bytes[$0..<($0 + key.count)].elementsEqual(key) })
        else { return [] }
        return bytes[at...]
    }

    static func mutate(_ text: inout [UInt8], using random: inout SplitMix64) {
        func pick(_ count: Int) -> Int { count == 0 ? 0 : Int(random.next() % UInt64(count)) }
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        // The timeline's lines: from `"timeline" : {` to the end of the document.
        let timeline = lines.firstIndex { $0.starts(with: Array(#"  "timeline" : {"#.utf8)) }.map { Array($0..<lines.count) } ?? []
        // The first number of one of `candidates` (line indices) becomes one of `replacements`.
        func replaceNumber(on candidates: [Int], with replacements: [String]) {
            let numberLines = candidates.filter { lines[$0].contains { (0x30...0x39).contains($0) } }
            guard !numberLines.isEmpty else { return }
            let index = numberLines[pick(numberLines.count)]
            let line = lines[index]
            guard let start = line.firstIndex(where: { (0x30...0x39).contains($0) }) else { return }
            var end = start
            while end < line.count, (0x30...0x39).contains(line[end]) || line[end] == 0x2E { end += 1 }
            lines[index] = Array(line[..<start]) + Array(replacements[pick(replacements.count)].utf8) + Array(line[end...])
        }
        switch random.next() % 10 {
        case 0:
            text = Array(text.prefix(pick(text.count)))
            return
        case 1, 2:
            // A number somewhere becomes something no run writes.
            replaceNumber(
                on: Array(lines.indices),
                with: ["1e400", "-7", "99999999999999999999999", "NaN", "\"text\"", "null", "true", "-0.5", "1.5", "[]", "{}"])
        case 3:
            if !lines.isEmpty { lines.remove(at: pick(lines.count)) }
        case 4:
            if !lines.isEmpty {
                let index = pick(lines.count)
                lines.insert(lines[index], at: index)
            }
        case 5:
            if !text.isEmpty {
                text[pick(text.count)] ^= UInt8(1 << pick(8))
                return
            }
        case 7:
            // A timeline number becomes one no run writes, or its interval or start change.
            replaceNumber(on: timeline, with: ["1e17", "0", "-1", "1e-9", "1e300", "0.0004", "86400000000", "720", "3.5"])
        case 8:
            // The timeline starts at another time: a clock never set, one far ahead, off the grid.
            let starts = ["1970-01-01T00:00:00.000Z", "2199-12-31T23:59:59.000Z", "2026-11-18T11:06:40.250Z", "9999-01-01T00:00:00.000Z"]
            guard let index = timeline.first(where: { lines[$0].starts(with: Array(#"    "start" : "#.utf8)) }) else { return }
            lines[index] = Array(#"    "start" : ""#.utf8) + Array(starts[pick(starts.count)].utf8) + Array(#"","#.utf8)
        case 9:
            // A run of timeline lines (a point, part of one) repeated or left out.
            guard timeline.count > 2 else { return }
            let from = timeline[pick(timeline.count)]
            let count = min(1 + pick(24), lines.count - from)
            let run = Array(lines[from..<(from + count)])
            if random.next() % 2 == 0 {
                lines.insert(contentsOf: Array([[[UInt8]]](repeating: run, count: 1 + pick(3)).joined()), at: from)
            } else {
                lines.removeSubrange(from..<(from + count))
            }
        default:
            // A structural swap: an object where a list was, or the reverse.
            if let index = text.indices.filter({ text[$0] == 0x7B || text[$0] == 0x5B }).randomElement(using: &random) {
                text[index] = text[index] == 0x7B ? 0x5B : 0x7B
                return
            }
        }
        text = Array(lines.joined(separator: [0x0A]))
    }

    @Test func mutatedReportsNeverCrashAndAlwaysSayWhatIsWrong() async throws {
        let directory = try TemporaryDirectory()
        let valid = ReportFixtures.report()
        let basePath = try directory.write("base.json", valid.jsonText())
        let base = try RunReport.read(path: basePath)
        let original = Array(try valid.jsonText().utf8)
        let originalJSON = try #require(try JSONSerialization.jsonObject(with: Data(original)) as? NSDictionary)
        var rejected = 0
        var timelineMutants = 0
        for index in 0..<Self.cases {
            var random = SplitMix64.derived(seed: 0xF0CC, stream: UInt64(index))
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) { Self.mutate(&bytes, using: &random) }
            if Self.timelinePart(bytes) != Self.timelinePart(original) { timelineMutants += 1 }
            let path = directory.path + "/mutant-\(index).json"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // Whether the mutant is still a report decides every command's exit status. Foundation's
            // parser, which shares no code with survey-bot's, anchors that decision at both ends:
            // what it cannot parse is no report, and what it parses to the original's value is.
            let reading = Result { () throws(RunReport.ReadError) in try RunReport.read(path: path) }
            let readable = try? reading.get()
            let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            if parsed == nil { #expect(readable == nil, "case \(index): not JSON, yet read as a report") }
            // A name twice in one object is refused: parsers differ on which one counts.
            let duplicates = (try? JSONValue.parse(bytes).get()).flatMap { RunReport.duplicateKeyProblem($0) } != nil
            if (parsed as? NSDictionary) == originalJSON, !duplicates, case .failure(let error) = reading {
                Issue.record("case \(index): the original's value, refused: \(error)")
            }
            let expected: [String: ExitCode]
            if let readable {
                let diff = ReportDiff(base: base, new: readable, tolerances: .init())
                let merge: ExitCode
                if let merged = try? RunReport.merged([(path: path, report: readable)]) {
                    merge = merged.interrupted ? .interrupted : merged.passed ? .success : .failure
                } else {
                    merge = .validationFailure
                }
                expected = Dictionary(uniqueKeysWithValues: Self.reportFormats.map { ("report \($0)", ExitCode.success) })
                    .merging(DiffFormat.allCases.map { ("diff \($0)", diff.passed ? .success : .failure) }) { $1 }
                    .merging(["merge": merge]) { $1 }
            } else {
                rejected += 1
                expected = Dictionary(
                    uniqueKeysWithValues: (Self.reportFormats.map { "report \($0)" } + DiffFormat.allCases.map { "diff \($0)" } + ["merge"])
                        .map { ($0, .validationFailure) })
            }
            var results: [(String, CommandResult)] = []
            for format in Self.reportFormats {
                results.append(("report \(format)", await runCommand(["report", path, "--format", format.rawValue])))
            }
            for format in DiffFormat.allCases {
                results.append(("diff \(format)", await runCommand(["diff", basePath, path, "--format", format.rawValue])))
            }
            results.append(("merge", await runCommand(["merge", path, "--out", directory.path + "/merged-\(index).json"])))
            for (name, result) in results {
                #expect(result.status == expected[name], "case \(index) \(name): \(result.err)")
                if result.status == .validationFailure {
                    #expect(result.err.contains("mutant-\(index).json"), "case \(index) \(name): \(result.err)")
                }
            }
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: directory.path + "/merged-\(index).json")
        }
        print(
            "report fuzz: \(Self.cases) mutants through report (\(Self.reportFormats.count) formats), diff (\(DiffFormat.allCases.count) formats) "
                + "and merge, \(rejected) not reports, refused with exit 2; \(timelineMutants) with a timeline mutation")
        // The mutations must break reports, or the test proves nothing.
        #expect(rejected > Self.cases / 2, "only \(rejected) of \(Self.cases) mutants were refused")
        #expect(timelineMutants > Self.cases / 4, "only \(timelineMutants) of \(Self.cases) mutants changed the timeline")
    }
}
