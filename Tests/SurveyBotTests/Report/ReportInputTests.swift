import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// Report files are untrusted input: whatever one holds, `report` (every format), `diff` (every
/// format) and `merge` either take it or refuse it with exit 2 naming the file and the field —
/// never a crash, never a gigabyte.
@Suite struct ReportInputTests {
    /// Every command that reads a report, each format of each.
    static func commands(_ path: String, base: String, out: String) -> [[String]] {
        ReportFormat.allCases.map { ["report", path, "--format", $0.rawValue] }
            + DiffFormat.allCases.map { ["diff", base, path, "--format", $0.rawValue] }
            + [["merge", path, "--out", out]]
    }

    /// Runs every reader on `report` and expects each to refuse it, naming `field`.
    func expectRefusedByEveryReader(
        _ report: RunReport, naming field: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws {
        let directory = try TemporaryDirectory()
        let base = try directory.write("base.json", ReportFixtures.report().jsonText())
        let path = try directory.write("hostile.json", report.jsonText())
        for command in Self.commands(path, base: base, out: directory.path + "/merged.json") {
            let result = await runCommand(command)
            #expect(result.status == .validationFailure, "\(command): \(result.err)", sourceLocation: sourceLocation)
            #expect(
                result.err.contains("hostile.json") && result.err.contains(field), "\(command): \(result.err)",
                sourceLocation: sourceLocation)
        }
    }

    static func withTimeline(_ change: (inout RunReport.TimelineRecord) -> Void) -> RunReport {
        var report = ReportFixtures.report()
        change(&report.timeline!)
        return report
    }

    /// A change to the fixture's timeline, and the field the refusal must name.
    struct TimelineChange: Sendable, CustomTestStringConvertible {
        var field: String
        var change: @Sendable (inout RunReport.TimelineRecord) -> Void
        var testDescription: String { field }

        init(_ field: String, _ change: @escaping @Sendable (inout RunReport.TimelineRecord) -> Void) {
            (self.field, self.change) = (field, change)
        }
    }

    @Test(arguments: [
        TimelineChange("timeline.endpoints.submit.1.p95") { $0.stepPoints["submit"]![1].p95 = 1e17 },
        TimelineChange("timeline.endpoints.submit.1.max") { $0.stepPoints["submit"]![1].max = -1 },
        TimelineChange("timeline.endpoints.submit.0.attempts") { $0.stepPoints["submit"]![0].attempts = 100_000_000_000_000_000 },
        TimelineChange("timeline.endpoints.questions.2.failed") { $0.stepPoints["questions"]![2].failed = -3 },
        TimelineChange("timeline.interval_s") { $0.intervalS = 1e-9 },
        TimelineChange("timeline.interval_s") { $0.intervalS = 0 },
        TimelineChange("timeline.interval_s") { $0.intervalS = -1 },
        TimelineChange("timeline.start") { $0.start = "2026-11-18T11:06:40.250Z" },
        TimelineChange("timeline.start") { $0.start = "9999-01-01T00:00:00.000Z" },
        TimelineChange("timeline.survey.1.t") { $0.survey[1].t = 7 },
        TimelineChange("timeline.survey.0.respondents_active") { $0.survey[0].respondentsActive = 1e300 },
        TimelineChange("timeline.endpoints.submit") { $0.stepPoints["submit"]!.removeLast() },
        TimelineChange("timeline.run_end_s") { $0.runEndS = 1e300 },
        TimelineChange("timeline.endpoints.submit.0.errors") { $0.stepPoints["submit"]![0].errors["=cmd|' /C calc'!A0"] = 1 },
        TimelineChange("timeline.endpoints") { $0.stepPoints["ghost"] = $0.stepPoints["submit"] },
    ])
    func outOfRangeTimelineValuesAreRefusedNamingTheField(change: TimelineChange) async throws {
        try await expectRefusedByEveryReader(Self.withTimeline(change.change), naming: "'\(change.field)'")
    }

    @Test func namesNoRunWritesAreRefusedByOneRule() async throws {
        var kind = ReportFixtures.report()
        kind.stepReports["submit"]!.errors["=HYPERLINK(\"http://x\")"] = 1
        try await expectRefusedByEveryReader(kind, naming: "'endpoints.submit.errors'")
        var status = ReportFixtures.report()
        status.stepReports["submit"]!.status["2xx"] = 1
        try await expectRefusedByEveryReader(status, naming: "'endpoints.submit.status'")
        var step = ReportFixtures.report()
        step.stepReports["<img src=x>"] = step.stepReports["submit"]
        try await expectRefusedByEveryReader(step, naming: "'endpoints'")
        var reason = ReportFixtures.report()
        reason.respondents.abandonedReasons["\u{1B}[2J"] = 1
        try await expectRefusedByEveryReader(reason, naming: "'respondents.abandoned_reasons'")
        var stop = ReportFixtures.report()
        stop.stoppedBy = "**passed**"
        try await expectRefusedByEveryReader(stop, naming: "'stopped_by'")
    }

    @Test func aNameTwiceInOneObjectIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let text = try ReportFixtures.report().jsonText()
        let doubled = "{\n  \"name\" : \"passed\",\n" + text.dropFirst(2)
        let path = try directory.write("twice.json", doubled)
        let result = await runCommand(["report", path])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("twice.json: 'name' appears twice in one object"), "\(result.err)")
    }

    @Test func aTimelineLongerThanARunWritesIsRefusedBeforeItIsDecoded() async throws {
        let report = Self.withTimeline { timeline in
            let survey = timeline.survey[0]
            let step = timeline.stepPoints["submit"]![0]
            timeline.survey = (0..<(Timeline.maxIntervals + 1)).map {
                var point = survey
                point.t = Double($0)
                return point
            }
            timeline.stepPoints = [
                "submit": (0..<(Timeline.maxIntervals + 1)).map {
                    var point = step
                    point.t = Double($0)
                    return point
                }
            ]
        }
        try await expectRefusedByEveryReader(report, naming: "721 points")
    }

    @Test func aFileOverTheSizeLimitIsRefusedWithoutBeingReadWhole() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/huge.json"
        // Sparse: a GiB on paper, nothing on disk; read whole it would cost a GiB.
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{\"schema\": ".utf8)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 1 << 30)
        try handle.close()
        let result = await runCommand(["report", path])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("huge.json: larger than 16 MiB"), "\(result.err)")
    }

    @Test func shardsWhoseClocksAreDecadesApartMergeIntoABoundedTimeline() async throws {
        let directory = try TemporaryDirectory()
        var first = ReportFixtures.report(shard: Shard(index: 1, count: 2))
        var second = ReportFixtures.report(shard: Shard(index: 2, count: 2))
        // One host's clock was never set: its run began in 1970.
        first.timeline!.start = "1970-01-01T00:00:01.000Z"
        second.timeline!.start = "2026-11-18T11:06:40.000Z"
        let paths = [try directory.write("1.json", first.jsonText()), try directory.write("2.json", second.jsonText())]
        // Aligned on one grid of fine intervals, decades apart would be billions of points (the
        // merge aborted allocating them); coarsened, the timeline keeps its bound.
        let result = await runCommand(["merge"] + paths + ["--out", directory.path + "/merged.json"])
        #expect(result.status != .validationFailure, "\(result.err)")
        let merged = try RunReport.read(path: directory.path + "/merged.json")
        let timeline = try #require(merged.timeline)
        #expect(timeline.survey.count <= Timeline.maxIntervals)
        #expect(timeline.survey.map(\.respondentsStarted).reduce(0, +) == merged.respondents.started)
    }

    @Test func theLargestValuesAReportMayHoldRenderInEveryFormat() async throws {
        let directory = try TemporaryDirectory()
        let report = Self.withTimeline { timeline in
            for name in Array(timeline.stepPoints.keys) {
                for index in timeline.stepPoints[name]!.indices {
                    timeline.stepPoints[name]![index].attempts = RunReport.maxCount
                    timeline.stepPoints[name]![index].failed = RunReport.maxCount
                    for keyPath in [\RunReport.TimelineRecord.StepPoint.p50, \.p95, \.p99, \.max] {
                        timeline.stepPoints[name]![index][keyPath: keyPath] = RunReport.maxLatencyMs
                    }
                }
            }
            timeline.survey = timeline.survey.map {
                var point = $0
                point.respondentsActive = Double(RunReport.maxCount)
                return point
            }
        }
        let base = try directory.write("base.json", ReportFixtures.report().jsonText())
        let path = try directory.write("largest.json", report.jsonText())
        _ = try RunReport.read(path: path)
        for command in Self.commands(path, base: base, out: directory.path + "/merged.json") {
            let result = await runCommand(command)
            #expect(result.status != .validationFailure, "\(command): \(result.err)")
        }
    }
}
