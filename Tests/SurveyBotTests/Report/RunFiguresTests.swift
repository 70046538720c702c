import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The figures every consumer reads — thresholds, diff, renderers — and how reports are written.
@Suite struct RunFiguresTests {
    @Test func figuresAreDerivedFromTheCounts() {
        let figures = RunFigures(ReportFixtures.report())
        let submit = figures.perStep["submit"]
        // The fixture: 200 submit calls, 190 succeeded, 182 at once, 228 attempts, 38 failed, over 3 s.
        #expect(submit?.calls == 200)
        #expect(submit?.successRate == 0.95)
        #expect(submit?.firstTrySuccessRate == 182.0 / 200)
        #expect(submit?.errorRate == 38.0 / 228)
        #expect(submit?.retries == 28)
        #expect(submit?.attemptsPerSecond == 76)
        #expect(figures.survey.calls == 220)
        #expect(figures.survey.attemptsPerSecond == 83.3)
        #expect(figures.completionRate == 0.5)
    }

    @Test func surveyLatencyIsTheMergedHistogramOfEveryStep() throws {
        let metrics = ReportFixtures.metrics()
        var merged = metrics[.questions].correctedLatency
        merged.merge(metrics[.submit].correctedLatency)
        let figures = RunFigures(ReportFixtures.report(metrics: metrics))
        let expected = RunReport.LatencySummary(merged)
        #expect(figures.value(.p99, of: .survey) == expected.p99)
        #expect(figures.value(.max, of: .survey) == expected.max)
        #expect(figures.value(.p95, of: .step(.submit)) == RunReport.LatencySummary(metrics[.submit].correctedLatency).p95)
    }

    @Test func nothingToMeasureIsNoValueNotZero() {
        let figures = RunFigures(ReportFixtures.report(metrics: RunMetrics()))
        for metric in Threshold.Metric.allCases where metric != .retries && metric != .attemptsPerSecond {
            #expect(figures.value(metric, of: .step(.submit)) == nil, "\(metric)")
        }
        #expect(figures.value(.retries, of: .step(.submit)) == 0)
    }

    @Test func aReportReadBackGivesTheSameFiguresAndVerdicts() throws {
        let report = ReportFixtures.report()
        let directory = try TemporaryDirectory()
        let read = try RunReport.read(path: try directory.write("r.json", report.jsonText()))
        let (written, again) = (RunFigures(report), RunFigures(read))
        for scope in report.stepNames.map(Threshold.Scope.step) + [.survey] {
            for metric in Threshold.Metric.allCases where metric.applies(to: scope) {
                #expect(written.value(metric, of: scope) == again.value(metric, of: scope), "\(scope).\(metric)")
            }
        }
        #expect(read.thresholds == report.thresholds)
        #expect(read.thresholds.map(\.threshold) == ReportFixtures.plan.thresholds)
    }

    @Test func aReportWithAThresholdThisVersionDoesNotKnowIsRefusedWhenRead() throws {
        let text = try ReportFixtures.report().jsonText().replacingOccurrences(of: "\"submit.p95\"", with: "\"submit.p97\"")
        let directory = try TemporaryDirectory()
        let path = try directory.write("r.json", text)
        #expect {
            try RunReport.read(path: path)
        } throws: { error in
            "\(error)".contains("unknown threshold 'submit.p97'")
        }
    }
}

@Suite struct ReportRenderingTests {
    @Test func numberArraysStayOnOneLineAndTheTextParsesBack() throws {
        let value = JSONValue.object([
            ("buckets", .array([.array([.integer(1), .integer(2)]), .array([.integer(3), .integer(4)])])),
            ("empty", .object([])), ("none", .array([])), ("rate", .number(0.25)), ("name", .string("a \"b\"\n")),
        ])
        let text = value.prettyText()
        #expect(
            text == """
                {
                  "buckets" : [
                    [1, 2],
                    [3, 4]
                  ],
                  "empty" : {},
                  "none" : [],
                  "rate" : 0.25,
                  "name" : "a \\"b\\"\\n"
                }
                """)
        #expect(try JSONValue.parse(Array(text.utf8)).get() == value)
    }

    @Test func everyFormatRendersAndNamesItsFiles() throws {
        let report = ReportFixtures.report()
        #expect(Set(ReportFormat.allCases.map(\.fileExtension)).count == ReportFormat.allCases.count)
        for format in ReportFormat.allCases {
            let text = try format.render(report)
            #expect(text.hasSuffix("\n"), "\(format)")
            // CSV is the timeline alone: rows of figures, no title.
            if format != .csv { #expect(text.contains("smoke"), "\(format)") }
        }
        let directory = try TemporaryDirectory()
        let output = ReportOutput(directory: directory.path, formats: ReportFormat.allCases, shard: Shard(index: 2, count: 3))
        try output.prepare(name: "smoke")
        output.finish(report, started: Date(timeIntervalSince1970: 1_795_000_000))
        output.stop()
        #expect(output.failure == nil)
        #expect(
            output.written.map { ($0 as NSString).lastPathComponent }.sorted() == [
                "smoke-shard-2-of-3-20261118T110640Z.csv", "smoke-shard-2-of-3-20261118T110640Z.html",
                "smoke-shard-2-of-3-20261118T110640Z.json", "smoke-shard-2-of-3-20261118T110640Z.md",
                "smoke-shard-2-of-3-20261118T110640Z.txt", "smoke-shard-2-of-3-20261118T110640Z.xml",
                "smoke-shard-2-of-3-latest.prom",
            ])
        let latest = try String(contentsOfFile: "\(directory.path)/smoke-shard-2-of-3-latest.txt", encoding: .utf8)
        #expect(latest == TextReport.render(report))
    }

    @Test func latencyChartBinsHoldEveryAttempt() {
        let metrics = ReportFixtures.metrics()
        let histogram = metrics[.submit].correctedLatency
        let bins = LatencyChart.bins(histogram, count: 12)
        #expect(bins.count == 12)
        #expect(bins.map(\.count).reduce(0, +) == histogram.count)
        #expect(bins.first?.lower == histogram.min)
        #expect((bins.last?.upper ?? 0) > histogram.max)
        #expect(zip(bins, bins.dropFirst()).allSatisfy { $0.upper == $1.lower })
    }
}
