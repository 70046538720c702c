import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// What a plan or a report file holds cannot rewrite the report it is rendered into: one
/// escaping per output kind — Markdown, XML, CSV, a terminal — used everywhere that kind is
/// written.
@Suite struct ReportEscapingTests {
    /// A failed run whose free-text fields try to pass for a passed one, hide the rest in a
    /// comment, show an image, split table rows, close code spans and drive a terminal.
    static func hostileReport() -> RunReport {
        var report = ReportFixtures.report()
        report.name = "nightly\n\n**✅ passed all thresholds**\n\n<img src=https://x.test/a.png>\n<!--"
        report.target = "http://127.0.0.1:9/|x|\u{1B}]0;owned\u{7}"
        report.startedAt = "2026-11-18T11:06:40.250Z -->\u{1B}[2J"
        report.stepReports["submit"]!.errorSamples = ["timeout": "a|b\n# heading\u{0}"]
        report.thresholds[0].threshold.limitText = "99%` | ✅ passed | <!--"
        report.stoppedBy = RunReport.stoppedByThresholdCause
        report.stoppedByThreshold = "submit.p95 < 1ms`\u{1B}[31m **passed**"
        // A survey's question ids and answers are the server's text: they may hold anything too.
        report.questions?.byID["q|1\n# heading<!--"] = RunReport.Question(
            shown: 2, answered: 1, unanswered: 1, refused: 1, answers: ["a|b\u{1B}[31m<img src=x>": 2])
        report.questions?.unreached.append("u`|\u{1B}[2J")
        return report
    }

    /// The pipes of a table row that end cells: those not escaped by a backslash.
    static func cellPipes(_ line: String) -> Int {
        var count = 0
        var escaped = false
        for character in line {
            if character == "|" && !escaped { count += 1 }
            escaped = character == "\\" && !escaped
        }
        return count
    }

    /// `markdown` with its code spans (a run of backticks to the next run as long) left out.
    static func withoutCodeSpans(_ markdown: String) -> String {
        var result = ""
        var rest = Substring(markdown)
        while let open = rest.firstIndex(of: "`") {
            result += rest[..<open]
            let fence = rest[open...].prefix { $0 == "`" }
            let after = rest[fence.endIndex...]
            guard let close = after.range(of: fence), after[close.upperBound...].first != "`" else {
                rest = after
                continue
            }
            rest = after[close.upperBound...]
        }
        return result + rest
    }

    @Test func markdownShowsHostileTextAsTextNeverAsMarkup() throws {
        let markdown = MarkdownReport.render(Self.hostileReport())
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Nothing begins a block of its own, opens a comment or an HTML tag, or turns bold.
        #expect(!lines.contains { $0.hasPrefix("**✅") || $0.hasPrefix("<") || $0.hasPrefix("# heading") })
        // Every `<` escaped but inside a code span, where Markdown reads no HTML: no tag, no comment.
        #expect(!Self.withoutCodeSpans(markdown).replacingOccurrences(of: "\\<", with: "").contains("<"))
        #expect(markdown.contains("``submit.success_rate >= 99%` \\| ✅ passed \\| <!--``"))
        #expect(!markdown.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        // Every row of a table has as many cells as its header.
        var header: Int? = nil
        for line in lines {
            guard line.hasPrefix("|") else {
                header = nil
                continue
            }
            if let header {
                #expect(Self.cellPipes(line) == header, "\(line)")
            } else {
                header = Self.cellPipes(line)
            }
        }
    }

    @Test func diffMarkdownFencesFileNamesWhateverTheyHold() throws {
        let report = ReportFixtures.report()
        let diff = ReportDiff(base: report, new: report, tolerances: .init(), basePath: "a`b.json", newPath: "``c|<!--.json")
        let markdown = MarkdownDiff.render(diff)
        #expect(markdown.contains("``a`b.json`` → ``` ``c|<!--.json ```"), "\(markdown)")
    }

    @Test func junitHoldsOnlyCharactersXML10Allows() throws {
        var report = Self.hostileReport()
        report.name = "a\u{1B}b\u{1}c\u{0}d\u{B}e\u{FFFE}f\u{FFFF}g\u{C}h"
        let junit = JUnitReport.render(report)
        let parser = XMLParser(data: Data(junit.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        let allowed: (Unicode.Scalar) -> Bool = {
            [0x9, 0xA, 0xD].contains($0.value) || (0x20...0xD7FF).contains($0.value) || (0xE000...0xFFFD).contains($0.value)
                || $0.value >= 0x10000
        }
        #expect(junit.unicodeScalars.allSatisfy(allowed))
    }

    @Test(arguments: ["=HYPERLINK(\"http://x.test\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\r=1"])
    func csvNeutralisesCellsThatBeginLikeAFormula(field: String) {
        let cell = CSVReport.quoted(field)
        #expect(cell.hasPrefix("\"'"))
        #expect(cell.hasSuffix("\""))
        #expect(String(cell.dropFirst(2).dropLast()) == field.replacingOccurrences(of: "\"", with: "\"\""))
    }

    @Test func csvLeavesOrdinaryCellsAsTheyAre() {
        #expect(CSVReport.quoted("submit") == "submit")
        #expect(CSVReport.quoted("2026-11-18T11:06:40.000Z") == "2026-11-18T11:06:40.000Z")
        #expect(CSVReport.quoted("a,b") == "\"a,b\"")
    }

    @Test func theTerminalShowsControlCharactersFromAReportAsDiagnosticsDo() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("evil\u{1B}[2J.json", Self.hostileReport().jsonText())
        let base = try directory.write("base.json", ReportFixtures.report().jsonText())
        for command in [
            ["report", path, "--format", "text"], ["diff", base, path], ["merge", path, "--out", directory.path + "/m.json"],
        ] {
            let result = await runCommand(command)
            #expect(!(result.out + result.err).unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" || $0 == "\u{0}" }, "\(command)")
            #expect((result.out + result.err).contains("\\u{1B}"), "\(command)")
        }
        // A file that is no report, its name with an escape sequence: the error shows it escaped.
        let bad = try directory.write("bad\u{1B}]0;owned\u{7}.json", "{}")
        for command in [["report", bad], ["diff", base, bad], ["merge", bad, "--out", directory.path + "/m2.json"]] {
            let result = await runCommand(command)
            #expect(result.status == .validationFailure, "\(command)")
            #expect(!result.err.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" }, "\(command)")
            #expect(result.err.contains("bad\\u{1B}]0;owned\\u{07}.json"), "\(command): \(result.err)")
        }
    }

    @Test func theRunsStartLineShowsAPlanNamesControlCharactersEscaped() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "evil.plan",
            """
            name: "evil\u{1B}]0;owned\u{7}\u{1B}[2J"
            target: builtin
            respondents: 1
            concurrency: 1
            report:
              dir: \(directory.path)
              formats: [json]
            """)
        let result = await runCommand(["run", plan])
        #expect(!(result.out + result.err).unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" }, "\(result.err)")
        #expect(result.err.contains("running evil\\u{1B}]0;owned\\u{07}\\u{1B}[2J"), "\(result.err)")
    }
}
