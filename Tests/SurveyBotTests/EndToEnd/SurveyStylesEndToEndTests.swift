import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// The reference server's API shapes (`serve --api`), each driven by a declared journey with its
/// faults on, and each run's report reconciled with what the server says it stored.
@Suite struct SurveyStylesEndToEndTests {
    /// Runs `plan` (its `target` replaced by the server's URL and its `builtin` block dropped)
    /// against `serve` with `options`; the report, the exit status and the server's stats.
    func run(_ plan: String, name: String, serve options: [String]) async throws -> (RunReport, Int32, ReferenceServerStats) {
        let (server, url) = try await startServer(options)
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var text = plan
        if let builtin = text.range(of: "\nbuiltin:") {
            let rest = text[builtin.upperBound...]
            let end = rest.range(of: "\n\n").map(\.lowerBound) ?? rest.endIndex
            text.removeSubrange(builtin.lowerBound..<end)
        }
        text = text.replacingOccurrences(of: "target: builtin", with: "target: \(url)")
        let path = try directory.write("\(name).plan", text)
        let run = try ChildProcess(surveyBot: ["run", path, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let report = try RunReport.read(path: directory.path + "/\(name)-latest.json")
        return (report, status, try await fetchStats(url))
    }

    @Test func aPageLoopTakesEveryPageAndTheServerStoresWhatTheReportCounts() async throws {
        var plan = try String(contentsOfFile: repositoryPath("plans/builtin-pages.plan"), encoding: .utf8)
        // Ten attempts, so that no page meets the 10% refusal on every one: which request draws a
        // refusal follows the order the respondents' posts reach the server, and three in a row
        // for one of 60 pages came now and then (a respondent abandoned, seen in CI).
        plan = plan.replacingOccurrences(of: "      attempts: 3", with: "      attempts: 10")
        let (report, status, stats) = try await run(
            plan, name: "builtin-pages", serve: ["--api", "pages", "--questions", "7", "--fail-rate", "10%", "--seed", "3"])
        #expect(status == 0)
        #expect(report.respondents.completed == 20)
        // Seven questions are pages of 3, 3 and 1: three pages per respondent, each taken once.
        let page = try #require(report.stepReports["page"])
        #expect(page.succeeded == 60)
        #expect(stats.endpoints["submit"]?["200"] == 60)
        #expect(stats.stored.responses == 20 && stats.stored.answers == 140)
        #expect(report.answers.submitted == stats.stored.answers)
        // Every refused page was posted again, and the server counted each refusal the report did.
        let refused = page.errors["http_4xx"] ?? 0
        #expect(refused > 0 && stats.endpoints["submit"]?["400"] == refused)
        #expect(page.attempts == 60 + refused)
        #expect(stats.endpoints["session"] == ["201": 20, "204": 20])
    }

    @Test func aSessionWhoseQuestionsCannotBeReadIsStillClosed() async throws {
        var plan = try String(contentsOfFile: repositoryPath("plans/builtin-pages.plan"), encoding: .utf8)
        // The first page read with the contract's text field, which the pages API does not have.
        plan = plan.replacingOccurrences(
            of: "    questions: $.questions              # the first page\n    question_text: text\n", with: "    questions: $.questions\n")
        plan = plan.replacingOccurrences(of: "    retry:\n      attempts: 3", with: "    retry:\n      attempts: 1")
        let (report, _, stats) = try await run(plan, name: "builtin-pages", serve: ["--api", "pages", "--questions", "7"])
        #expect(report.respondents.abandonedReasons == ["questions_unavailable": 20])
        #expect(report.stepReports["start"]?.errors == ["malformed_response": 20])
        // The session's id was captured all the same, and the close that runs `always` ended it.
        #expect(report.stepReports["close"]?.succeeded == 20 && stats.closedSessions == 20)
    }

    @Test func aSurveyLongerThanItsPageBoundEndsAsAPageLimitAndStoresNothing() async throws {
        var plan = try String(contentsOfFile: repositoryPath("plans/builtin-pages.plan"), encoding: .utf8)
        plan = plan.replacingOccurrences(of: "pages: 10", with: "pages: 2")
        let (report, status, stats) = try await run(plan, name: "builtin-pages", serve: ["--api", "pages", "--questions", "7"])
        #expect(status == 1)
        #expect(report.respondents.abandonedReasons == ["page_limit": 20])
        #expect(report.stepReports["page"]?.succeeded == 40)
        // The pages taken are stored as a response in progress; none is whole.
        #expect(stats.stored.responses == 0)
        #expect(stats.stored.answers == 120 && report.answers.submitted == 120)
        // Each session was still closed: the close runs after an abandonment too.
        #expect(stats.endpoints["session"] == ["201": 20, "204": 20] && stats.closedSessions == 20)
    }

    @Test func theTypedPlanAnswersFromTheSurveyAndItsFiguresAreTheServersQuestionByQuestion() async throws {
        var plan = try String(contentsOfFile: repositoryPath("plans/builtin-typed.plan"), encoding: .utf8)
        // Ten attempts, so that no page meets the 10% refusal on every one (three would, now and then, among 90 pages).
        plan = plan.replacingOccurrences(of: "      attempts: 3", with: "      attempts: 10")
        let (report, status, stats) = try await run(
            plan, name: "builtin-typed", serve: ["--api", "pages", "--survey", "typed", "--fail-rate", "10%", "--seed", "4"])
        #expect(status == 0)
        // Every answer picked from what the survey listed was one it takes: none refused for its type.
        #expect(report.respondents.abandoned == 0 && report.respondents.completed == 30 && stats.stored.responses == 30)
        #expect(stats.invalidSubmits == 0, "every answer read from the survey is of its question's type")
        let questions = try #require(report.questions?.byID)
        expectTypedFiguresAreTheServers(questions, stats)
        // Required questions are never declined; a fifth of the optional ones are, about.
        #expect(["q1", "q3", "q5", "q6"].allSatisfy { questions[$0]?.declined == 0 })
        #expect(["q2", "q4", "q7", "q8"].map { questions[$0]?.declined ?? 0 }.reduce(0, +) > 0)
        #expect(report.answers.declined == questions.values.map(\.declined).reduce(0, +))
        // The branch: q5 ("Why red?") was shown to exactly those who chose red.
        let red = stats.answersByQuestion["q1"]?["c1"] ?? 0
        #expect(red > 0 && red < 30 && stats.shownByQuestion["q5"] == red)
    }

    @Test func theTypedPlanRunsAgainstTheBuiltinServerCompletingWhatItDeclines() async throws {
        let directory = try TemporaryDirectory()
        // Without refusals: this test is about the start, which needs an answer for every required question.
        let result = await runCommand([
            "run", repositoryPath("plans/builtin-typed.plan"), "--out", directory.path, "--quiet", "--set", "builtin.fail_rate=0%",
        ])
        #expect(result.status == .success, "\(result.err)")
        let report = try RunReport.read(path: directory.path + "/builtin-typed-latest.json")
        #expect(report.respondents.completed == 30 && report.stepReports["page"]?.succeeded == 90)
        #expect(report.answers.skipped == 0 && report.answers.unanswered == 0 && report.answers.declined > 0)
    }

    @Test func theDefaultJourneyAnswersTheTypedSurveyOverTheContract() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "typed-contract.plan",
            lines(
                "name: typed-contract", "target: builtin", "respondents: 6", "concurrency: 2", "seed: 3", "answers:", "  q1: [c1, c2]",
                "  q3: \"10\"", "  q5: warm", "  q6: c3", "  q8: \"12\"", "  q4: none", "builtin:", "  survey: typed",
                // A threshold of its own: the implicit one asks for a completed respondent, and each skips two questions.
                "thresholds:", "  submit.success_rate: \"== 100%\""))
        let result = await runCommand(["run", plan, "--out", directory.path, "--quiet"])
        #expect(result.status == .success, "\(result.err)")
        let report = try RunReport.read(path: directory.path + "/typed-contract-latest.json")
        // Six answers each, every one of its question's type (a refusal would leave it unanswered);
        // the two lists of choices skipped.
        #expect(report.answers.submitted == 36 && report.answers.unanswered == 0 && report.answers.skipped == 12)
        #expect(report.stepReports["submit"]?.errors.isEmpty == true)
    }

    static let onePost = """
        name: one-post
        target: builtin
        respondents: 30
        concurrency: 3
        seed: 5
        journey:
          fetch:
            request: GET /survey
            questions: $.survey.pages[*].questions[*]
            question_text: heading
          respond:
            request: POST /responses
            runs: per_survey
            body: '{"answers": ${answers}}'
            answers_item: '{"question": ${question.id}, "value": ${answer}}'
            expect:
              - status == 201
              - $.id exists
            retry:
              attempts: 3
              on: [400]
        answers:
          "*": [a, b]

        """

    @Test func oneRequestPerSurveyIsOneStoredResponseWithEveryAnswer() async throws {
        let (report, status, stats) = try await run(
            Self.onePost, name: "one-post", serve: ["--api", "one_post", "--questions", "5", "--fail-rate", "20%", "--seed", "9"])
        #expect(status == 0)
        let respond = try #require(report.stepReports["respond"])
        #expect(respond.calls == 30)
        #expect(stats.stored.responses == respond.succeeded)
        #expect(stats.stored.answers == report.answers.submitted)
        #expect(report.answers.submitted + report.answers.unanswered == 150)
        #expect(stats.endpoints["submit"]?["201"] == respond.succeeded)
        #expect((stats.endpoints["submit"]?["400"] ?? 0) == respond.attempts - respond.succeeded)
        #expect(stats.invalidSubmits == 0, "every response named the survey's own questions")
    }

    static let rpc = """
        name: rpc
        target: builtin
        respondents: 24
        concurrency: 3
        seed: 2
        journey:
          login:
            request: POST /rpc
            body: '{"method": "get_session_key", "params": ["admin", "secret"], "id": 1}'
            capture:
              key: $.result
          questions:
            request: POST /rpc
            body: '{"method": "list_questions", "params": [${session.key}, 900001], "id": 2}'
            questions: $.result
            question_id: qid
            question_text: question
            expect:
              - $.error not exists
              - $.result.status not exists
          respond:
            request: POST /rpc
            runs: per_survey
            body: '{"method": "add_response", "params": [${session.key}, 900001, ${answers}], "id": 3}'
            answers_key: '900001X${question.gid}X${question.id}'
            expect:
              - $.error not exists
              - $.result.status not exists
          release:
            request: POST /rpc
            body: '{"method": "release_session_key", "params": [${session.key}], "id": 4}'
            always: true
        answers:
          "*": yes
        thresholds:
          respond.success_rate: ">= 99%"

        """

    @Test func jsonRPCRefusalsInsideA200AreRejectedAndTheReportAgreesWithTheStoredRows() async throws {
        let (report, status, stats) = try await run(
            Self.rpc, name: "rpc", serve: ["--api", "jsonrpc", "--questions", "4", "--fail-rate", "25%", "--seed", "4"])
        #expect(status == 1, "a quarter of the responses were refused")
        let respond = try #require(report.stepReports["respond"])
        let refused = try #require(stats.endpoints["submit"]?["200 refused"])
        #expect(refused > 0)
        #expect(respond.errors == ["rejected": refused])
        #expect(respond.errorSamples?["rejected"] == #"check '$.result.status not exists' failed: found "Unable to add response""#)
        #expect(stats.stored.responses == respond.succeeded && respond.succeeded == 24 - refused)
        #expect(stats.stored.answers == report.answers.submitted && report.answers.submitted == 4 * respond.succeeded)
        #expect(report.stepReports["release"]?.succeeded == 24)
    }

    @Test func theBuiltinTargetRunsEachShape() async throws {
        let directory = try TemporaryDirectory()
        for (name, plan) in [("one-post", Self.onePost + "builtin:\n  api: one_post\n"), ("rpc", Self.rpc + "builtin:\n  api: jsonrpc\n")] {
            let path = try directory.write("\(name).plan", plan)
            let run = try ChildProcess(surveyBot: ["run", path, "--out", directory.path, "--quiet"])
            #expect(await run.wait(seconds: 60) == 0, "\(run.standardError)")
            let report = try RunReport.read(path: directory.path + "/\(name)-latest.json")
            #expect(report.respondents.completed == report.respondents.started && report.answers.unanswered == 0)
        }
    }
}
