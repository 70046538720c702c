import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// What the survey saw, question by question, from the real executable: the report's
/// `questions` against the reference server's `/__stats`, and against the Python server's log
/// of every submit it read, question by question; answers from the environment and the data feed
/// shown as the plan shows them, never by their values.
@Suite struct QuestionFiguresEndToEndTests {
    @Test func theReportsQuestionsAddUpToWhatTheReferenceServerCounted() async throws {
        // A third of the submits refused with a 400, never retried: each one a refused answer.
        let (server, url) = try await startServer(["--fail-rate", "30%"])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        _ = try directory.write("rows.csv", "answer.2\nrow-secret-a\nrow-secret-b\n")
        let planPath = try directory.write(
            "perq.plan",
            """
            name: perq
            target: http://127.0.0.1:1
            respondents: 6
            concurrency: 2
            timeout: 10s
            seed: 3
            data: rows.csv
            answers:
              1: ["${PERQ_ANSWER}", plain]
              99: never asked
              "*": yes
            retry:
              submit:
                attempts: 1
            report:
              formats: [json, markdown, text, html]
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["PERQ_ANSWER"] = "env-secret"
        let run = try ChildProcess(
            surveyBot: ["run", planPath, "--target", url, "--out", directory.path, "--quiet"], environment: environment)
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        let report = try RunReport.read(path: directory.path + "/perq-latest.json")
        // No thresholds: the run fails only when no respondent got all ten answers through.
        #expect(status == 0 || status == 1 && report.verdict == .noneCompleted, "\(run.standardError)")
        let questions = try #require(report.questions)

        // The server refused some and took the rest (a positive control)…
        let submits = stats.endpoints["submit", default: [:]]
        #expect(submits["400", default: 0] > 0 && submits["200", default: 0] > 0, "\(submits)")
        #expect(Set(submits.keys) == ["200", "400"], "\(submits)")
        // …and the questions add up to exactly what it counted.
        let total = questions.total
        #expect(total.answered == submits["200"])
        #expect(total.refused == submits["400"])
        #expect(total.unanswered == submits["400"], "every failed submit was a refusal")
        #expect(total.answered == report.answers.submitted && total.unanswered == report.answers.unanswered)
        #expect(questions.orderedIDs == (1...10).map(String.init))
        for (id, question) in questions.byID {
            #expect(question.shown == 6, "question \(id) was shown to each respondent")
            #expect(question.answered + question.unanswered == 6, "question \(id)")
            #expect(question.given == 6 && question.otherAnswers == 0, "question \(id)")
        }
        // The plan's answer from the environment by its name, the data row's as such.
        #expect(Set(questions.byID["1"].map { Array($0.answers.keys) } ?? []).isSubset(of: ["${PERQ_ANSWER}", "plain"]))
        #expect(questions.byID["1"]?.answers["${PERQ_ANSWER}"] != nil, "\(questions.byID["1"]?.answers ?? [:])")
        #expect(questions.byID["2"]?.answers == ["(from the data)": 6])
        #expect(questions.byID["3"]?.answers == ["yes": 6])
        // The plan answers 99, which the survey never asks: a branch never reached.
        #expect(questions.unreached == ["99"])
        var outputs = [run.standardOutput, run.standardError]
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasPrefix("perq-") {
            let text = try String(contentsOfFile: directory.path + "/" + file, encoding: .utf8)
            if file.hasSuffix(".md") || file.hasSuffix(".html") { #expect(text.contains("99"), "\(file) names the unreached question") }
            outputs.append(text)
        }
        for secret in ["env-secret", "row-secret"] {
            #expect(!outputs.contains { $0.contains(secret) }, "\(secret) was shown")
        }
    }

    @Test(.enabled(if: Installed.python3 != nil, "python3 is not installed: no independent server to count"))
    func eachQuestionsFiguresAreWhatThePythonServerLoggedOfIt() async throws {
        // Respondents 0 and 2 have question 2 refused (a 400), respondent 1 question 3 failing with
        // 503s; the retry policy gives each submit two attempts, on 5xx only.
        let server = try await PythonSurveyServer.start(
            questions: 4, faults: ["submit:2@0": ["400"], "submit:2@2": ["400"], "submit:3@1": ["503", "503"]])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let planPath = try directory.write(
            "perq.plan",
            """
            name: perq
            target: http://127.0.0.1:\(server.port)
            respondents: 5
            concurrency: 2
            timeout: 30s
            seed: 4
            api:
              headers:
                X-Respondent: ${respondent.id}
            answers:
              1: [red, green, blue]
              7: unreached
              "*": fine
            retry:
              submit:
                attempts: 2
                backoff: constant
                initial: 5ms
                on: [5xx]
            report:
              formats: [json]
            """)
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let requests = try server.requests().filter { $0.step == "submit" }
        #expect(status == 0, "\(run.standardError)\n\(server.output)")
        let questions = try #require(try RunReport.read(path: directory.path + "/perq-latest.json").questions)

        for id in 1...4 {
            let key = String(id)
            let log = requests.filter { $0.question == id }
            // Each call's last attempt decides it; its first carries the answer the figures count.
            let calls = Dictionary(grouping: log, by: \.call).values.map { attempts in attempts.max { $0.attempt < $1.attempt }! }
            let question = try #require(questions.byID[key], "question \(id)")
            #expect(question.shown == 5 && calls.count == 5, "question \(id): \(calls.count) calls")
            #expect(question.answered == calls.count { $0.outcome == "200" }, "question \(id)")
            #expect(question.unanswered == calls.count { $0.outcome != "200" }, "question \(id)")
            #expect(question.refused == calls.count { $0.outcome.hasPrefix("4") }, "question \(id)")
            var given: [String: Int] = [:]
            for call in Dictionary(grouping: log, by: \.call).values { given[call[0].answer ?? "", default: 0] += 1 }
            #expect(question.answers == given, "question \(id)")
        }
        #expect(questions.byID["2"]?.refused == 2, "a positive control: two respondents' question 2 was refused")
        #expect(questions.byID["3"]?.unanswered == 1 && questions.byID["3"]?.refused == 0)
        #expect(questions.unreached == ["7"])
    }
}
