import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// What a run counts: every response a kind, and what a plan retries by default.
@Suite struct RunCountsTests {
    private func attempt(_ endpoint: Endpoint, _ outcome: AttemptOutcome, succeeded: Bool = false) -> AttemptRecord {
        AttemptRecord(endpoint: endpoint, attempt: 1, outcome: outcome, succeeded: succeeded, serviceTime: .milliseconds(1), start: 0)
    }

    @Test func aRedirectIsCountedAsHTTP3xx() {
        var metrics = RunMetrics()
        metrics.add(attempt(.questions, .status(302)))
        metrics.add(attempt(.questions, .status(301)))
        metrics.questions.endCall(succeeded: false, attempts: 2)
        let report = ReportFixtures.report(metrics: metrics)
        let questions = report.endpoints["questions"]
        #expect(questions?.status == ["301": 1, "302": 1])
        #expect(questions?.errors == ["http_3xx": 2])
        #expect(questions?.failedAttempts == 2)
        #expect(MarkdownReport.render(report).contains("| questions | http_3xx | 2 |"))
    }

    @Test func aPlanRetriesNeitherRedirectsNorMalformedAnswersByDefault() throws {
        let plan = try PlanLoader(environment: [:]).load(text: "target: builtin\n", path: "p.plan").get()
        var random = SplitMix64(seed: 1)
        for endpoint in Endpoint.allCases {
            let policy = plan.run.retry[endpoint]
            #expect(policy.decide(afterAttempt: 1, outcome: .status(302), using: &random) == .notRetryable, "\(endpoint)")
            #expect(policy.decide(afterAttempt: 1, outcome: .error(.malformedResponse), using: &random) == .notRetryable, "\(endpoint)")
            // What is retried by default still is.
            #expect(policy.decide(afterAttempt: 1, outcome: .status(503), using: &random) != .notRetryable, "\(endpoint)")
        }
    }
}
