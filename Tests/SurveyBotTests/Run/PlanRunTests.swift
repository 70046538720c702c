import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The session's teardown on each path. Serialized: a session installs the process's
/// SIGINT/SIGTERM handling while it runs, and two at once would take it from each other.
@Suite(.serialized) struct PlanRunTests {
    private func session(_ text: String, directory: TemporaryDirectory) throws -> PlanRun {
        let plan = try #require(expectPlan(text + "report:\n  dir: \(directory.path)\n"))
        return PlanRun(plan: plan, path: "test.plan", options: PlanRun.Options(quiet: true), console: CapturingConsole().console)
    }

    @Test func aRunStopsEverythingItStartedLastFirstAndWritesTheReport() async throws {
        let directory = try TemporaryDirectory()
        let session = try session(lines("name: ordered", "respondents: 3", "seed: 1", "builtin:", "  questions: 2"), directory: directory)
        #expect(await session.run() == .success)
        #expect(session.stopped == ["signal handling", "transport", "builtin server", "event loops", "output", "signals"])
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/ordered-latest.json"))
    }

    @Test func aFailureAfterTheServerStartedStopsTheServerAndWhatCameBefore() async throws {
        let directory = try TemporaryDirectory()
        let questions = try directory.write("q.json", #"[{"id": 1, "question": "a"}, {"id": 7, "question": "b"}]"#)
        let session = try session(
            lines("name: unanswerable", "builtin:", "  questions_file: \(questions)", "answers:", "  1: yes"), directory: directory)
        #expect(await session.run() == .validationFailure)
        #expect(session.stopped == ["builtin server", "event loops", "output", "signals"])
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/unanswerable-latest.json"))
    }

    @Test func anUnwritableReportDirectoryStopsOnlyTheSignalWatcher() async throws {
        let directory = try TemporaryDirectory()
        let blocker = try directory.write("file", "not a directory")
        let plan = try #require(expectPlan(lines("respondents: 1", "report:", "  dir: \(blocker)/reports")))
        let session = PlanRun(
            plan: plan, path: "test.plan", options: PlanRun.Options(quiet: true), console: CapturingConsole().console)
        #expect(await session.run() == .validationFailure)
        #expect(session.stopped == ["signals"])
    }
}
