import Foundation

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// A fixed run: the smoke plan, made-up but plausible metrics, fixed times. Every format is
/// golden-tested against its rendering.
enum ReportFixtures {
    static let plan: Plan = {
        let text = (try? String(contentsOfFile: repositoryPath("plans/smoke.plan"), encoding: .utf8)) ?? ""
        return (try? PlanLoader(environment: [:]).load(text: text, path: "plans/smoke.plan").get())!
    }()

    /// Metrics whose latencies come from a seeded generator: the same every time.
    static func metrics(seed: UInt64 = 1, respondents: Int = 20, submitLatencyScale: Double = 1) -> RunMetrics {
        var random = SplitMix64(seed: seed)
        var metrics = RunMetrics()
        // The run began 0.25 s into a second of wall-clock time: its timeline starts at that second.
        metrics.timeline = Timeline(interval: 1_000_000_000, origin: 1_795_000_000_250_000_000)
        var second: UInt64 = 0
        func latency(_ base: Double) -> Duration {
            .nanoseconds(Int64(base * (0.6 + Double(random.next() % 1000) / 1000)))
        }
        for respondent in 0..<respondents {
            metrics.respondentsStarted += 1
            second = UInt64(respondent / 8) * 1_000_000_000
            metrics.timeline.respondentStarted(at: second)
            let coldStart = respondent < 2
            if coldStart {
                metrics.add(
                    AttemptRecord(
                        step: .questions, attempt: 1, outcome: .status(503), succeeded: false, serviceTime: latency(900_000),
                        start: second)
                )
            }
            // Each respondent opens one https connection for the questions and keeps it.
            let opened = ConnectionInfo(
                reused: false, connectTime: .microseconds(Int64(70 + respondent)),
                tlsHandshakeTime: .microseconds(Int64(900 + 10 * respondent)),
                tls: "TLSv1.3 TLS_AES_256_GCM_SHA384", tlsResumed: respondent % 2 == 1)
            metrics.add(
                AttemptRecord(
                    step: .questions, attempt: coldStart ? 2 : 1, outcome: .status(200), succeeded: true,
                    serviceTime: latency(2_000_000), start: second, connection: opened))
            metrics[.questions].endCall(succeeded: true, attempts: coldStart ? 2 : 1)
            var unanswered = 0
            for question in 1...10 {
                let failing = (respondent + question) % 17 == 0
                var attempts = 0
                for attempt in 1...3 {
                    attempts = attempt
                    let fails = failing || (respondent * question) % 23 == 1 && attempt == 1
                    let outcome: AttemptOutcome = fails ? (attempt == 2 ? .error(.timeout) : .status(400)) : .status(200)
                    metrics.add(
                        AttemptRecord(
                            step: .submit, attempt: attempt, outcome: outcome, succeeded: !fails,
                            serviceTime: latency(1_500_000 * submitLatencyScale), start: second, connection: .reused))
                    if !fails { break }
                }
                let succeeded = !failing
                metrics[.submit].endCall(succeeded: succeeded, attempts: attempts)
                // Shown once a respondent; question 2's answer is one of the plan's three, by turns.
                metrics.questions.update(QuestionID(question)) { figures in
                    figures.add(.shown)
                    figures.add(question == 2 ? AnswerValue.choice(respondent % 3) : .choice(0))
                    figures.add(succeeded ? .answered : .unanswered)
                    // Its last attempt a 400: the server refused the answer.
                    if !succeeded { figures.add(.refused) }
                }
                if !succeeded { unanswered += 1 }
            }
            metrics.timeline.respondentFinished(at: second + 900_000_000)
            metrics.add(
                RespondentResult(
                    ending: unanswered == 0 ? .completed : .finishedWithUnanswered, submitted: 10 - unanswered, unanswered: unanswered))
        }
        return metrics
    }

    /// The run id of fixture reports unless a test gives another.
    static let runID = "fixture-run"

    static func report(
        metrics: RunMetrics = metrics(), plan: Plan = plan, shard: Shard = .whole, interrupted: Bool = false, runID: String = runID
    ) -> RunReport {
        // From the timeline's origin to the last respondent's end, 2.9 s later, and a little more.
        let start = Date(timeIntervalSince1970: 1_795_000_000.25)
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: start, endedAt: start.addingTimeInterval(3), elapsed: .seconds(3), seed: 42,
            shard: shard, stoppedBy: interrupted ? .signal : .completed, runID: runID)
        return RunReport.make(metrics: metrics, facts: facts)
    }
}
