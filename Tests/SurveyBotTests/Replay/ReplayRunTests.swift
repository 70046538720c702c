import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyMetrics
@testable import SurveyTestSupport

/// The plan run's seam for `replay`: its transport wrapped, every attempt logged with its step,
/// and no report written. Serialized: a run installs the process's signal handling while it
/// runs, and two at once would take it from each other.
@Suite(.serialized) struct ReplayRunTests {
    @Test func aRunCanBeRecordedAttemptByAttemptWithoutWritingAReport() async throws {
        let directory = try TemporaryDirectory()
        let plan = try #require(
            expectPlan(
                lines("name: seam", "respondents: 1", "seed: 1", "builtin:", "  questions: 2", "report:", "  dir: \(directory.path)/out")))
        let kept = RecordingTransport.Kept()
        let log = AttemptLog(lanes: 1)
        var options = PlanRun.Options(quiet: true)
        options.writesReport = false
        options.attemptLog = log
        options.wrapTransport = { RecordingTransport($0, keepingIn: kept) }
        let session = PlanRun(plan: plan, path: "seam.plan", options: options, console: CapturingConsole().console)
        #expect(await session.run() == .success)
        #expect(!session.stopped.contains("output"))
        #expect(!FileManager.default.fileExists(atPath: "\(directory.path)/out"))
        var logged: [LoggedAttempt] = []
        log.drain(lane: 0, into: &logged)
        // The questions and one submit a question, each kept by the transport and logged by the run.
        #expect(logged.map(\.step.name) == ["questions", "submit", "submit"])
        let exchanges = kept.exchanges
        #expect(exchanges.map(\.method) == ["GET", "POST", "POST"])
        #expect(exchanges.allSatisfy { $0.response?.status == 200 })
        #expect(exchanges.first?.response?.body.map { !$0.isEmpty } == true)
        let attempts = ReplayedAttempt.attempts(exchanges: exchanges, logged: logged)
        #expect(attempts.map { $0.label(repeated: $0.step == "submit") } == ["questions", "submit #1", "submit #2"])
    }
}
