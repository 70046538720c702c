import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// Compares `text` with the golden file; `SURVEY_BOT_UPDATE_GOLDEN=1 swift test` rewrites them.
private func expectGolden(_ text: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let path = repositoryPath("Tests/SurveyBotTests/Report/Golden/\(name)")
    if ProcessInfo.processInfo.environment["SURVEY_BOT_UPDATE_GOLDEN"] == "1" {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return
    }
    let golden = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text == golden, "\(name) differs from its golden file", sourceLocation: sourceLocation)
}

/// An HTML page as its golden file keeps it: what a reviewer reads (verdict, tables, the charts'
/// titles and series), with the head's constants of `HTMLPage` (the stylesheet) and each chart's drawing
/// left out; the drawing has tests of its own (`ChartTests`, `HTMLReportTests`) and the
/// browser check of `.ci/run`.
private func readablePage(_ html: String) -> String {
    var text = html
    if let head = text.range(of: "<head>"), let end = text.range(of: "</head>", range: head.upperBound..<text.endIndex) {
        let title = text[head.upperBound..<end.lowerBound].firstRange(of: "<title>").map { start in
            text[start.lowerBound...].prefix { $0 != "\n" }
        }
        text.replaceSubrange(head.upperBound..<end.lowerBound, with: title.map { "\($0)…" } ?? "…")
    }
    var searchFrom = text.startIndex
    while let open = text.range(of: "<svg ", range: searchFrom..<text.endIndex),
        let close = text.range(of: "</svg>", range: open.upperBound..<text.endIndex)
    {
        let drawing = text[open.lowerBound..<close.upperBound]
        let label = drawing.firstRange(of: "aria-label=\"").map { start in drawing[start.upperBound...].prefix { $0 != "\"" } } ?? ""
        let lines = drawing.components(separatedBy: "<path class=\"data").count - 1
        let summary = "<svg aria-label=\"\(label)\"><!-- \(lines) line\(lines == 1 ? "" : "s") drawn --></svg>"
        text.replaceSubrange(open.lowerBound..<close.upperBound, with: summary)
        searchFrom = text.index(open.lowerBound, offsetBy: summary.count)
    }
    return text
}

@Suite struct ReportFormatTests {
    /// Every format, a new one included: its golden file is `smoke.<extension>`, written by
    /// `SURVEY_BOT_UPDATE_GOLDEN=1` the first time.
    @Test(arguments: ReportFormat.allCases) func everyFormatMatchesItsGoldenFile(_ format: ReportFormat) throws {
        let text = try format.render(ReportFixtures.report())
        try expectGolden(format == .html ? readablePage(text) : text, "smoke.\(format.fileExtension)")
    }

    @Test(arguments: DiffFormat.allCases) func everyDiffFormatMatchesItsGoldenFile(_ format: DiffFormat) throws {
        // The fixture against itself with submits 30% slower: regressions, noise, too few samples.
        let slower = ReportFixtures.report(metrics: ReportFixtures.metrics(submitLatencyScale: 1.3))
        let diff = ReportDiff(base: ReportFixtures.report(), new: slower, tolerances: .init(), basePath: "base.json", newPath: "new.json")
        let fileExtension =
            switch format {
            case .text: "txt"
            case .markdown: "md"
            case .json, .html: format.rawValue
            }
        let text = try format.render(diff)
        try expectGolden(format == .html ? readablePage(text) : text, "diff.\(fileExtension)")
    }

    @Test func jsonRoundTripsAndRerendersIdentically() throws {
        let report = ReportFixtures.report()
        let directory = try TemporaryDirectory()
        let path = try directory.write("r.json", report.jsonText())
        let read = try RunReport.read(path: path)
        #expect(read == report)
        #expect(MarkdownReport.render(read) == MarkdownReport.render(report))
        #expect(try read.jsonText() == report.jsonText())
    }

    @Test func reportHasTheCoreFieldsOfTheSpec() throws {
        let value = try JSONValue.parse(Array(try ReportFixtures.report().jsonText().utf8)).get()
        #expect(value["schema"] == .string("survey-bot.report/1"))
        for key in ["passed", "interrupted", "endpoints", "respondents", "answers", "throughput", "thresholds", "plan"] {
            #expect(value[key] != nil, "\(key)")
        }
        let submit = try #require(value["endpoints"]?["submit"])
        for key in ["calls", "attempts", "succeeded", "failed", "first_try_succeeded", "retries", "status", "errors", "latency_ms"] {
            #expect(submit[key] != nil, "submit.\(key)")
        }
        for key in ["min", "mean", "p50", "p90", "p95", "p99", "p999", "max"] {
            #expect(submit["latency_ms"]?[key] != nil, "latency_ms.\(key)")
        }
        #expect(value["throughput"]?["attempts_per_s"] != nil)
    }

    @Test func thresholdsAreEvaluatedAndFailureFailsTheReport() throws {
        var plan = ReportFixtures.plan
        plan.thresholds.append(Threshold(scope: .step(.submit), metric: .p50, comparison: .less, limit: 0.5, limitText: "0.5ms"))
        let report = ReportFixtures.report(plan: plan)
        #expect(!report.passed)
        let failed = try #require(report.thresholds.last)
        #expect(failed.threshold.name == "submit.p50" && !failed.passed)
        #expect((failed.actual ?? 0) > 0.5)
        #expect(JUnitReport.render(report).contains("<failure message=\"submit.p50: actual"))
        #expect(MarkdownReport.render(report).contains("❌ failed"))
    }

    @Test func secretsNeverReachTheReport() throws {
        let text = """
            target: builtin
            api:
              headers:
                Authorization: Bearer ${TOKEN}
                X-Static: plain-secret-too
            answers:
              "*": ${ANSWER}
            report:
              include_answers: true
            """
        let plan = try PlanLoader(environment: ["TOKEN": "s3cr3t-token", "ANSWER": "private-answer"]).load(text: text, path: "p.plan").get()
        let report = ReportFixtures.report(plan: plan)
        for rendered in [try report.jsonText(), MarkdownReport.render(report), TextReport.render(report), JUnitReport.render(report)] {
            #expect(!rendered.contains("s3cr3t-token"))
            #expect(!rendered.contains("plain-secret-too"))
            #expect(!rendered.contains("private-answer"))
        }
        #expect(report.plan.headers == ["Authorization": "<redacted>", "X-Static": "<redacted>"])
    }

    @Test func answersStayOutUnlessAskedFor() {
        #expect(ReportFixtures.report().plan.answers == nil)
    }

    @Test func readRefusesWhatIsNotAReport() throws {
        let directory = try TemporaryDirectory()
        let cases: [(String, String)] = [
            ("{\"schema\": \"survey-bot.report/2\"}", "is not 'survey-bot.report/1'"),
            ("[1, 2", "not JSON"),
            ("{\"hello\": 1}", "not a survey-bot report"),
            ("{\"schema\": \"survey-bot.report/1\", \"passed\": true}", "missing field"),
        ]
        for (index, (text, message)) in cases.enumerated() {
            let path = try directory.write("\(index).json", text)
            #expect(throws: RunReport.ReadError.self) { try RunReport.read(path: path) }
            do {
                _ = try RunReport.read(path: path)
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
                #expect(error.description.hasPrefix(path))
            }
        }
    }

    @Test func reportCommandRerendersSavedReports() async throws {
        let directory = try TemporaryDirectory()
        let report = ReportFixtures.report()
        let path = try directory.write("r.json", report.jsonText())
        let markdown = await runCommand(["report", path, "--format", "markdown"])
        #expect(markdown.status == .success)
        #expect(markdown.out == MarkdownReport.render(report))
        let junit = await runCommand(["report", path, "--format", "junit"])
        #expect(junit.out == JUnitReport.render(report))
        let text = await runCommand(["report", path])
        #expect(text.out == TextReport.render(report))
        let bad = await runCommand(["report", path, "--format", "markdwn"])
        #expect(bad.status == .validationFailure)
        #expect(bad.err.contains("did you mean 'markdown'?"))
        let missing = await runCommand(["report", directory.path + "/nope.json"])
        #expect(missing.status == .validationFailure)
        #expect(missing.err.contains("cannot read \(directory.path)/nope.json: no such file or directory"))
    }
}
