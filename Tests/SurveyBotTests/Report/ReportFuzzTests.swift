import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// Seeded mutations of a valid report fed to `report`, `diff` and `merge`: truncation, numbers
/// swapped for huge, negative, non-finite or wrongly typed values, deleted and duplicated lines,
/// byte flips. Never a crash; a file that is not a valid report is always exit 2 naming the file.
///
/// `swift test` runs a slice; `SURVEY_BOT_FUZZ_REPORTS=10000` (bench/fuzz.sh) the full size.
@Suite struct ReportFuzzTests {
    static var cases: Int { Int(ProcessInfo.processInfo.environment["SURVEY_BOT_FUZZ_REPORTS"] ?? "") ?? 300 }

    static func mutate(_ text: inout [UInt8], using random: inout SplitMix64) {
        func pick(_ count: Int) -> Int { count == 0 ? 0 : Int(random.next() % UInt64(count)) }
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        switch random.next() % 7 {
        case 0:
            text = Array(text.prefix(pick(text.count)))
            return
        case 1, 2:
            // A number somewhere becomes something no run writes.
            let replacements = ["1e400", "-7", "99999999999999999999999", "NaN", "\"text\"", "null", "true", "-0.5", "1.5", "[]", "{}"]
            let numberLines = lines.indices.filter { lines[$0].contains { (0x30...0x39).contains($0) } }
            guard !numberLines.isEmpty else { return }
            let index = numberLines[pick(numberLines.count)]
            let line = lines[index]
            guard let start = line.firstIndex(where: { (0x30...0x39).contains($0) }) else { return }
            var end = start
            while end < line.count, (0x30...0x39).contains(line[end]) || line[end] == 0x2E { end += 1 }
            lines[index] = Array(line[..<start]) + Array(replacements[pick(replacements.count)].utf8) + Array(line[end...])
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
        for index in 0..<Self.cases {
            var random = SplitMix64.derived(seed: 0xF0CC, stream: UInt64(index))
            var bytes = original
            for _ in 0..<(1 + Int(random.next() % 3)) { Self.mutate(&bytes, using: &random) }
            let path = directory.path + "/mutant-\(index).json"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            // Whether the mutant is still a report decides every command's exit status. Foundation's
            // parser, which shares no code with survey-bot's, anchors that decision at both ends:
            // what it cannot parse is no report, and what it parses to the original's value is.
            let readable = try? RunReport.read(path: path)
            let parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            if parsed == nil { #expect(readable == nil, "case \(index): not JSON, yet read as a report") }
            if (parsed as? NSDictionary) == originalJSON { #expect(readable != nil, "case \(index): the original's value, refused") }
            let expected: [String: ExitCode]
            if let readable {
                let diff = ReportDiff(base: base, new: readable, tolerances: .init())
                let merge: ExitCode
                if let merged = try? RunReport.merged([(path: path, report: readable)]) {
                    merge = merged.interrupted ? .interrupted : merged.passed ? .success : .failure
                } else {
                    merge = .validationFailure
                }
                expected = [
                    "report": .success, "html": .success, "csv": .success, "diff": diff.passed ? .success : .failure, "merge": merge,
                ]
            } else {
                rejected += 1
                expected = Dictionary(uniqueKeysWithValues: ["report", "html", "csv", "diff", "merge"].map { ($0, .validationFailure) })
            }
            let report = await runCommand(["report", path, "--format", "markdown"])
            let html = await runCommand(["report", path, "--format", "html"])
            let csv = await runCommand(["report", path, "--format", "csv"])
            let diff = await runCommand(["diff", basePath, path])
            let merge = await runCommand(["merge", path, "--out", directory.path + "/merged-\(index).json"])
            for (name, result) in [("report", report), ("html", html), ("csv", csv), ("diff", diff), ("merge", merge)] {
                #expect(result.status == expected[name], "case \(index) \(name): \(result.err)")
                if result.status == .validationFailure {
                    #expect(result.err.contains("mutant-\(index).json"), "case \(index) \(name): \(result.err)")
                }
            }
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: directory.path + "/merged-\(index).json")
        }
        print("report fuzz: \(Self.cases) mutants through report, diff and merge, \(rejected) not reports, refused with exit 2")
        // The mutations must break reports, or the test proves nothing.
        #expect(rejected > Self.cases / 2, "only \(rejected) of \(Self.cases) mutants were refused")
    }
}
