import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Declared journeys run by the real executable against `survey-bot serve --login`, reconciled
/// with what the server counted; and the default journey spelt out as steps, which runs exactly
/// as the default does.
@Suite struct JourneyEndToEndTests {
    @Test func everySessionOpenedIsUsedAndClosedAndTheServerCountsWhatTheReportSays() async throws {
        let (server, url) = try await startServer(["--login", "--questions", "5", "--fail-rate", "10%", "--seed", "3"])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var plan = try String(contentsOfFile: repositoryPath("plans/journey.plan"), encoding: .utf8)
        // The same journey against the served API: no builtin block, the server's URL.
        plan = String(plan[..<plan.range(of: "builtin:")!.lowerBound]).replacingOccurrences(of: "target: builtin", with: "target: \(url)")
        let path = try directory.write("journey.plan", plan)
        let run = try ChildProcess(surveyBot: ["run", path, "--out", directory.path, "--quiet"])
        #expect(await run.wait(seconds: 60) == 0, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/journey-latest.json")
        let stats = try await fetchStats(url)

        #expect(report.stepNames == ["session", "fetch", "answer", "logout"])
        let steps = report.stepReports
        #expect(steps["session"]?.calls == 20 && steps["session"]?.succeeded == 20)
        #expect(steps["logout"]?.calls == 20 && steps["logout"]?.succeeded == 20)
        #expect(report.respondents.completed == 20)
        #expect(report.answers.submitted == 100)
        // The server's own count: 20 sessions, each closed, each used by its own respondent only —
        // its fetch, its answers' attempts (retries included) and its logout.
        #expect(stats.sessions.count == 20)
        #expect(stats.closedSessions == 20)
        let answerAttempts = try #require(steps["answer"]?.attempts)
        #expect(stats.sessions.values.reduce(0, +) == 20 + answerAttempts + 20)
        #expect(stats.requests("submit") == answerAttempts)
        #expect(stats.endpoints["submit"]?["200"] == 100)
        #expect(stats.endpoints["session"] == ["200": 20, "204": 20])
        #expect(steps["answer"]?.retries == answerAttempts - 100)
        #expect(answerAttempts > 100, "a 10% fail rate over 100 answers retried none: \(answerAttempts)")
    }

    /// A survey API that stores each answer as it arrives, and answers every fourth one after
    /// the client has given up: what a timed-out POST sent again does to the stored rows. Late
    /// is twice the plan's 2 s timeout (a delay never ends early); the timeout itself is far
    /// above any other loopback answer, so that a busy machine cannot time the fetch out.
    final class SlowStore: Sendable {
        let state = Mutex<(received: Int, rows: [String: Int])>((0, [:]))

        func handle(_ request: HTTPServerRequest) -> HTTPServerAction {
            if request.method == "GET" {
                return .respond(EncodedResponse(.json(200, Array(#"[{"id":1,"question":"a"},{"id":2,"question":"b"}]"#.utf8))))
            }
            let late = state.withLock { state -> Bool in
                state.received += 1
                state.rows[String(decoding: request.body, as: UTF8.self), default: 0] += 1
                return state.received % 4 == 0
            }
            let stored = HTTPServerAction.respond(EncodedResponse(.json(201, Array("{}".utf8))))
            return late ? .after(.seconds(4), stored) : stored
        }
    }

    @Test func aPostThatTimedOutIsNotSentAgainUnlessTheStepSaysItIsIdempotent() async throws {
        let directory = try TemporaryDirectory()
        var results: [(report: RunReport, received: Int, duplicates: Int)] = []
        for idempotent in [false, true] {
            let store = SlowStore()
            let group = EventLoopGroup(threads: 1)
            let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, handler: store.handle)
            try await tearingDown(
                after: {
                    let plan = try directory.write(
                        "store.plan",
                        lines(
                            "name: store", "target: http://127.0.0.1:\(server.port)", "respondents: 12", "concurrency: 4", "seed: 2",
                            "timeout: 2s", "journey:", "  fetch:", "    request: GET /questions", "    questions: $", "  answer:",
                            "    request: POST /answers", "    runs: per_question",
                            #"    body: '{"respondent": ${respondent.id}, "question": ${question.id}, "answer": ${answer}}'"#,
                            "    idempotent: \(idempotent)"))
                    let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"])
                    _ = await run.wait(seconds: 60)
                    let report = try RunReport.read(path: directory.path + "/store-latest.json")
                    let counts = store.state.withLock { $0 }
                    results.append((report, counts.received, counts.rows.values.reduce(0) { $0 + $1 - 1 }))
                },
                {
                    await server.shutdown()
                    group.shutdown()
                })
        }
        let (safe, received, duplicates) = results[0]
        let answer = try #require(safe.stepReports["answer"])
        // Each answer sent once: 24 rows, none twice; the timed-out ones unanswered, not resent.
        #expect(received == 24 && duplicates == 0)
        #expect(answer.attempts == 24 && answer.retries == 0)
        // Six answered late by design; a loaded machine may time out more, never fewer.
        let timeouts = answer.errors["timeout"] ?? 0
        #expect(timeouts >= 6 && answer.retriesUnsafe == timeouts)
        #expect(safe.answers.submitted == 24 - timeouts && safe.answers.unanswered == timeouts)
        let text = TextReport.render(safe)
        #expect(text.contains("  not retried: answer \(timeouts): not idempotent, and the request may have reached the server\n"))
        // Said to be idempotent, the timed-out answers go again, and the server stores them twice.
        let (repeated, _, twice) = results[1]
        #expect(twice > 0 && repeated.stepReports["answer"]?.retriesUnsafe == 0)
    }

    @Test func theDefaultJourneySpeltOutAsStepsRunsExactlyAsTheDefault() async throws {
        let directory = try TemporaryDirectory()
        let base = lines(
            "target: builtin", "respondents: 12", "concurrency: 1", "seed: 5", "builtin:", "  questions: 3", "  fail_rate: 20%",
            "  error_rate: 5%", "report:", "  dir: \(directory.path)")
        let spelt = lines(
            "journey:", "  questions:", "    request: GET /questions", "    questions: $", "  submit:",
            "    request: POST /question/submit",
            "    runs: per_question", "    retry:", "      on: [400, 5xx, timeout, connection]")
        let defaultPlan = try directory.write("default.plan", "name: default\n" + base)
        let journeyPlan = try directory.write("spelt.plan", "name: spelt\n" + base + spelt)
        for plan in [defaultPlan, journeyPlan] {
            let result = await runCommand(["run", plan, "--quiet"])
            #expect(result.status.rawValue <= 1, "\(result.err)")
        }
        let one = try RunReport.read(path: directory.path + "/default-latest.json")
        let other = try RunReport.read(path: directory.path + "/spelt-latest.json")
        #expect(one.stepNames == other.stepNames)
        for step in ["questions", "submit"] {
            let a = try #require(one.stepReports[step])
            let b = try #require(other.stepReports[step])
            let counts: [Int] = [a.calls, a.attempts, a.succeeded, a.retries]
            let otherCounts: [Int] = [b.calls, b.attempts, b.succeeded, b.retries]
            #expect(counts == otherCounts, "\(step)")
            #expect(a.status == b.status, "\(step)")
        }
        #expect(one.respondents == other.respondents, "respondents")
        #expect(one.answers == other.answers)
        #expect((one.stepReports["submit"]?.retries ?? 0) > 0)
    }
}
