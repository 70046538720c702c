import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Parses `html` as XML: the page is written XHTML-compatible, so a parse error is markup that
/// is not well-formed (an unclosed or crossed tag, an unescaped `&` or `<`).
private func expectWellFormed(_ html: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let parser = XMLParser(data: Data(html.utf8))
    let parsed = parser.parse()
    #expect(
        parsed, "not well-formed at line \(parser.lineNumber): \(parser.parserError.map { "\($0)" } ?? "")",
        sourceLocation: sourceLocation)
}

/// The `<svg>` elements of a page.
private func charts(_ html: String) -> [Substring] {
    html.components(separatedBy: "<svg ").dropFirst().map { $0.prefix { _ in true }.split(separator: "</svg>").first ?? "" }
}

private func expectSelfContained(_ html: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    for word in ["NaN", "undefined", "Infinity", "<script", "src=", "href=", "@import", "url("] {
        #expect(!html.contains(word), "the page contains \(word)", sourceLocation: sourceLocation)
    }
}

@Suite struct HTMLReportTests {
    @Test func theReportPageIsWellFormedAndSelfContained() {
        let html = HTMLReport.render(ReportFixtures.report())
        expectWellFormed(html)
        expectSelfContained(html)
    }

    @Test func theVerdictAndThresholdsComeBeforeTheChartsAndTheTables() throws {
        let html = HTMLReport.render(ReportFixtures.report())
        let verdict = try #require(html.range(of: "class=\"verdict"))
        let thresholds = try #require(html.range(of: "<h2>Thresholds</h2>"))
        let chart = try #require(html.range(of: "<svg "))
        let tables = try #require(html.range(of: "<h2>Steps</h2>"))
        #expect(verdict.lowerBound < thresholds.lowerBound && thresholds.lowerBound < chart.lowerBound)
        #expect(chart.lowerBound < tables.lowerBound)
    }

    @Test func everyChartDrawsItsData() {
        let html = HTMLReport.render(ReportFixtures.report())
        let svgs = charts(html)
        // Attempts, errors, latency of each step, the distribution, retries, respondents.
        #expect(svgs.count == 7)
        for svg in svgs { #expect(svg.contains("class=\"data "), "a chart without data: \(svg.prefix(120))") }
        for title in [
            "Attempts per second", "Failed attempts per second", "Latency of questions over time", "Latency of submit",
            "Latency distribution", "Retries per second", "Respondents active",
        ] {
            #expect(html.contains(title), "\(title)")
        }
    }

    @Test func aRunThatLoggedInShowsItsLoginInTheTableAndTheCharts() throws {
        // `api.login` makes a third step: every renderer shows it, the page too.
        var report = ReportFixtures.report()
        // The steps table alone: the errors table lists the login's errors by their own rule.
        func stepsTable(_ html: String) -> Substring {
            guard let start = html.range(of: "<h2>Steps</h2>"), let end = html[start.upperBound...].range(of: "</table>") else {
                return ""
            }
            return html[start.upperBound..<end.lowerBound]
        }
        #expect(!stepsTable(HTMLReport.render(report)).contains("<tr><td>login</td>"))
        report.stepReports["login"] = report.stepReports["questions"]
        let questionsOverTime = try #require(report.timeline?.stepPoints["questions"])
        report.timeline?.stepPoints["login"] = questionsOverTime
        let html = HTMLReport.render(report)
        #expect(stepsTable(html).contains("<tr><td>login</td>"), "the steps table has a login row")
        #expect(html.contains("Latency of login over time"))
        #expect(MarkdownReport.render(report).contains("p95 of login"))
        // Where steps share a chart, each has a colour of its own.
        for title in ["Latency distribution", "Retries per second"] {
            guard let start = html.range(of: title), let end = html[start.upperBound...].range(of: "</ul>") else {
                Issue.record("no chart \(title)")
                continue
            }
            let legend = html[start.upperBound..<end.lowerBound]
            let swatches = legend.matches(of: /<span class="swatch (s\d)[^"]*"><\/span>([a-z]+)/).map { ($0.output.2, $0.output.1) }
            #expect(Set(swatches.map(\.0)) == ["login", "questions", "submit"], "\(title): \(swatches)")
            #expect(Set(swatches.map(\.1)).count == 3, "\(title): \(swatches)")
        }
    }

    /// Every chart over time spans the whole run, even one whose step had no attempt in the
    /// last intervals: side by side, their axes agree, and end where the run ended.
    @Test func everyChartOverTimeSpansTheWholeRun() throws {
        var report = ReportFixtures.report()
        var questions = try #require(report.timeline?.stepPoints["questions"])
        for index in questions.indices.dropFirst() {
            questions[index] = RunReport.TimelineRecord.StepPoint(
                t: questions[index].t, attempts: 0, succeeded: 0, failed: 0, retries: 0, errors: [:])
        }
        report.timeline?.stepPoints["questions"] = questions
        let charts = TimelineCharts(runs: [TimelineCharts.Run(report: report, label: nil, dashed: false)])
        let overTime = [charts.attempts, charts.retries, charts.respondents] + charts.latency.map(\.chart)
        let axes = overTime.map { $0.xAxis.ticks }
        #expect(Set(axes).count == 1, "\(axes)")
        // The fixture's run lasted 3 s: its axis ends there, and so does each series.
        #expect(overTime.allSatisfy { $0.xAxis.domain == (0, 3) })
        #expect(axes.first == [0, 0.5, 1, 1.5, 2, 2.5, 3])
        #expect(charts.attempts.series.first?.points.last?.to == 3)
    }

    /// Each interval is drawn over the part of it the run covered, in seconds from the run's
    /// start, and rated over that part: the first and last intervals do not collapse.
    @Test func intervalsAreDrawnOverThePartTheRunCovered() throws {
        let report = ReportFixtures.report()
        let charts = TimelineCharts(runs: [TimelineCharts.Run(report: report, label: nil, dashed: false)])
        let succeeded = try #require(charts.attempts.series.first)
        #expect(succeeded.points.map(\.from) == [0, 0.75, 1.75, 2.75])
        #expect(succeeded.points.map(\.to) == [0.75, 1.75, 2.75, 3])
        let timeline = try #require(report.timeline)
        let first = timeline.stepPoints.values.map { $0[0].succeeded }.reduce(0, +)
        #expect(succeeded.points.first?.y == Double(first) / 0.75)
    }

    @Test func aReportWithoutTimelineSaysSoAndStillHasItsTables() {
        var report = ReportFixtures.report()
        report.timeline = nil
        let html = HTMLReport.render(report)
        expectWellFormed(html)
        #expect(html.contains("has no timeline"))
        #expect(charts(html).isEmpty)
        #expect(html.contains("<h2>Steps</h2>"))
    }

    @Test func textFromTheReportIsEscaped() {
        var report = ReportFixtures.report()
        report.name = "a <b> & \"c\""
        let html = HTMLReport.render(report)
        expectWellFormed(html)
        #expect(html.contains("a &lt;b&gt; &amp; &quot;c&quot;"))
    }

    @Test func theDiffPageOverlaysBothRunsAndMarksRegressions() {
        let slower = ReportFixtures.report(metrics: ReportFixtures.metrics(submitLatencyScale: 1.3))
        let diff = ReportDiff(base: ReportFixtures.report(), new: slower, tolerances: .init(), basePath: "base.json", newPath: "new.json")
        let html = HTMLDiff.render(diff)
        expectWellFormed(html)
        expectSelfContained(html)
        #expect(html.contains("<h2>Regressions</h2>"))
        #expect(html.contains("<tr class=\"regressed\">"))
        #expect(html.contains("<figure class=\"chart regressed\"><figcaption>Latency of submit over time (succeeded attempts) — regressed"))
        #expect(!html.contains("Latency of questions over time (succeeded attempts) — regressed"))
        for svg in charts(html) {
            #expect(svg.contains("dashed\""), "the base run is drawn dashed")
            #expect(svg.contains("class=\"data "))
        }
    }
}

/// A run that lasted less than two intervals: the smoke plan's 0.2 s.
private func shortReport() -> RunReport {
    var report = ReportFixtures.report()
    report.durationS = 0.215
    guard var timeline = report.timeline else { return report }
    timeline.runEndS = 0.465
    timeline.survey = Array(timeline.survey.prefix(1))
    timeline.stepPoints = timeline.stepPoints.mapValues { Array($0.prefix(1)) }
    report.timeline = timeline
    return report
}

@Suite struct ShortRunChartTests {
    /// Charts over time of a run within one interval would be a dot each: the page says the run
    /// was too short instead, and keeps the distribution, which is not over time.
    @Test func aRunWithinOneIntervalIsTooShortToChartOverTime() {
        let html = HTMLReport.render(shortReport())
        expectWellFormed(html)
        #expect(
            html.contains(
                "The run lasted 0.215 s, within one interval of 1 s: too short to chart over time (<code>report.interval</code> sets shorter intervals)."
            ))
        #expect(charts(html).count == 1)
        #expect(html.contains("Latency distribution") && !html.contains("Attempts per second"))
        let markdown = MarkdownReport.render(shortReport())
        #expect(markdown.contains("## Over time\n\nThe run lasted 0.215 s, within one interval of 1 s: too short to chart over time"))
        #expect(!markdown.contains("mermaid"))
    }

    @Test func aDiffOfTwoShortRunsSaysSo() {
        let diff = ReportDiff(base: shortReport(), new: shortReport(), tolerances: .init())
        let html = HTMLDiff.render(diff)
        expectWellFormed(html)
        #expect(html.contains("The runs lasted 0.215 s and 0.215 s, each within one interval of 1 s: too short to chart over time"))
        #expect(charts(html).count == 1)
    }

    /// A diff whose base lasted one interval draws it over that interval, with a dot: not a
    /// dash of a few pixels.
    @Test func aShortBaseInADiffIsDrawnWithAMarker() {
        let diff = ReportDiff(base: shortReport(), new: ReportFixtures.report(), tolerances: .init())
        let html = HTMLDiff.render(diff)
        expectWellFormed(html)
        #expect(!html.contains("too short to chart"))
        let overTime = charts(html).filter { $0.contains("aria-label=\"Attempts per second") || $0.contains("over time\"") }
        #expect(!overTime.isEmpty)
        for svg in overTime { #expect(svg.contains("class=\"data marker "), "\(svg.prefix(100))") }
    }
}
