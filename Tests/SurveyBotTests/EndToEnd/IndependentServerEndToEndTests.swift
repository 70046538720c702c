import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The real executable against a survey server written in Python's standard library
/// (`PythonSurveyServer`), which shares no code with survey-bot, on the fault, signal and data
/// paths: every count of the report is reconciled with the server's own log of what it read and
/// answered, as the HTTPS tests reconcile with nginx's access log. The faults are scheduled per
/// call (a respondent's submit of one question, a member's login), not per request, so that what
/// the server does is the same however the respondents interleave.
@Suite(.enabled(if: Installed.python3 != nil, "python3 is not installed: no independent server to count (.ci/run installs it)"))
struct IndependentServerEndToEndTests {
    /// One step's figures as the report gives them, or as the server's log implies them: one
    /// call per respondent's call (the same respondent, step, question and login member), its
    /// attempts in the order read, the last one deciding whether the call failed.
    struct StepCount: Equatable, CustomStringConvertible {
        var calls = 0
        var attempts = 0
        var retries = 0
        var failedCalls = 0
        var failedAttempts = 0
        var status: [String: Int] = [:]
        var errors: [String: Int] = [:]

        init(_ step: RunReport.StepReport) {
            calls = step.calls
            attempts = step.attempts
            retries = step.retries
            failedCalls = step.failed
            failedAttempts = step.failedAttempts
            status = step.status
            errors = step.errors
        }

        init(_ requests: [PythonSurveyServer.Request], step: String) {
            var succeeded: [String: Bool] = [:]
            for request in requests where request.step == step {
                attempts += 1
                if request.attempt > 1 { retries += 1 }
                let success = request.outcome.hasPrefix("2")
                if let code = Int(request.outcome) {
                    status[request.outcome, default: 0] += 1
                    if !success { errors["http_\(code / 100)xx", default: 0] += 1 }
                } else {
                    // "close": part of a 200, then the connection closed.
                    errors["connection_closed", default: 0] += 1
                }
                if !success { failedAttempts += 1 }
                succeeded[request.call] = success
            }
            calls = succeeded.count
            failedCalls = succeeded.values.count { !$0 }
        }

        var description: String {
            "calls \(calls), attempts \(attempts), retries \(retries), failed \(failedCalls) calls and \(failedAttempts) attempts, "
                + "status \(status.sorted { $0.key < $1.key }), errors \(errors.sorted { $0.key < $1.key })"
        }
    }

    /// Expects the report's figures for `step` to be the server's, whole.
    static func expectReconciled(
        _ report: RunReport, with requests: [PythonSurveyServer.Request], step: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let figures = report.stepReports[step] else {
            Issue.record("the report has no step \(step)", sourceLocation: sourceLocation)
            return
        }
        #expect(StepCount(figures) == StepCount(requests, step: step), "\(step): report vs server", sourceLocation: sourceLocation)
    }

    /// A plan against the server on `port` with retries 5 ms apart, and `lines` (the load, the
    /// API, the answers); the timeout is far above any loopback answer, so that only the faults
    /// fail.
    static func plan(port: Int, _ lines: String) -> String {
        """
        name: indep
        target: http://127.0.0.1:\(port)
        timeout: 30s
        seed: 4
        retry:
          login:
            attempts: 3
            backoff: constant
            initial: 5ms
          questions:
            attempts: 3
            backoff: constant
            initial: 5ms
          submit:
            attempts: 3
            backoff: constant
            initial: 5ms
        report:
          formats: [json]
        \(lines)
        """
    }

    @Test func faultsAreReportedAsThePythonServerLoggedThem() async throws {
        // Every respondent's first questions attempt is a 503; of its five submits, question 1
        // meets a 500, question 2 a 503 and then a close after part of a 200, question 4 such a
        // close at once; respondents 0 and 3 meet three 500s at question 3, all their attempts.
        let server = try await PythonSurveyServer.start(
            questions: 5,
            faults: [
                "questions": ["503"], "submit:1": ["500"], "submit:2": ["503", "close"], "submit:4": ["close"],
                "submit:3@0": ["500", "500", "500"], "submit:3@3": ["500", "500", "500"],
            ])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let planPath = try directory.write(
            "indep.plan",
            Self.plan(
                port: server.port,
                """
                respondents: 6
                concurrency: 3
                api:
                  headers:
                    X-Respondent: ${respondent.id}
                answers:
                  "*": yes
                """))
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        // Each line was written before its answer left: the run has ended, so all are there.
        let requests = try server.requests()
        // No thresholds, and four respondents complete: the run passes.
        #expect(status == 0, "\(run.standardError)\n\(server.output)")
        let report = try RunReport.read(path: directory.path + "/indep-latest.json")

        // The server did as scheduled, whatever the interleaving (a positive control)…
        let questions = StepCount(requests, step: "questions")
        #expect(questions.attempts == 12 && questions.status == ["503": 6, "200": 6], "\(questions)")
        let submit = StepCount(requests, step: "submit")
        #expect(submit.calls == 30 && submit.attempts == 58 && submit.retries == 28, "\(submit)")
        #expect(submit.status == ["200": 28, "500": 12, "503": 6], "\(submit)")
        #expect(submit.errors == ["http_5xx": 18, "connection_closed": 12], "\(submit)")
        #expect(submit.failedCalls == 2 && submit.failedAttempts == 30, "\(submit)")
        #expect(Set(requests.map(\.step)) == ["questions", "submit"], "nothing else was asked: \(requests)")
        // …and the report counts exactly what it logged: statuses, closes, retries, failures.
        Self.expectReconciled(report, with: requests, step: "questions")
        Self.expectReconciled(report, with: requests, step: "submit")
        #expect(report.stepReports["submit"]?.succeeded == submit.calls - submit.failedCalls)
        #expect(report.answers.submitted == requests.count { $0.step == "submit" && $0.outcome == "200" })
        #expect(report.answers.unanswered == submit.failedCalls)
        #expect(report.respondents.started == 6 && report.respondents.completed == 4, "\(report.respondents)")
        #expect(report.respondents.finishedWithUnanswered == 2, "\(report.respondents)")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalledRunReportsEveryAttemptThePythonServerSaw(signal: Int32) async throws {
        // Every respondent's first submit of question 3 is held by the server until the signal
        // has been taken in: four attempts in flight when the run stops, which it must let finish
        // and count. Until then no respondent can get past question 3, so the run is in the same
        // state whenever the signal comes, however slow the machine. Every respondent's first
        // questions attempt is a 503 and its first submit of question 1 a 500, so that the partial
        // report has retries and failures to account for too.
        let server = try await PythonSurveyServer.start(
            questions: 10, faults: ["questions": ["503"], "submit:1": ["500"]], hold: "submit:3")
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let planPath = try directory.write(
            "indep.plan",
            Self.plan(
                port: server.port,
                """
                respondents: 100000
                concurrency: 4
                api:
                  headers:
                    X-Respondent: ${respondent.id}
                answers:
                  "*": yes
                """))
        // The server holds an attempt a minute at most: a longer timeout, so that none is cut.
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet", "--set", "timeout=90s"])
        let held = await server.waitForRequests { $0.count { $0.held == true } == 4 }
        #expect(held, "the four held attempts never came: \(run.standardError)\n\(server.output)")
        run.signal(signal)
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(await run.waitForError("\(name): stopping"), "\(run.standardError)")
        try server.release()
        let status = await run.wait(seconds: 60)
        let requests = try server.requests()
        #expect(status == 128 + signal, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/indep-latest.json")
        #expect(report.interrupted)
        #expect(report.respondents.started == 4, "\(report.respondents)")
        #expect(report.respondents.abandonedReasons == ["interrupted": 4], "\(report.respondents)")
        // The server read, for each of the four: a 503 and a 200 for its questions, a 500 and a
        // 200 for question 1, a 200 for question 2, and its held question 3, answered 200 after
        // the signal, last.
        for respondent in ["0", "1", "2", "3"] {
            let outcomes = requests.filter { $0.respondent == respondent }.map { "\($0.step) \($0.question ?? 0) \($0.outcome)" }
            #expect(
                outcomes == ["questions 0 503", "questions 0 200", "submit 1 500", "submit 1 200", "submit 2 200", "submit 3 200"],
                "respondent \(respondent)")
        }
        #expect(requests.count == 24 && requests.last?.held == true, "\(requests)")
        // Every attempt the server read is in the partial report, with its outcome, and no other:
        // the four in flight at the signal included.
        Self.expectReconciled(report, with: requests, step: "questions")
        Self.expectReconciled(report, with: requests, step: "submit")
        #expect(report.answers.submitted == 12 && report.stepReports["submit"]?.status == ["200": 12, "500": 4])
    }

    @Test func eachRowReachesThePythonServerAsTheReportSays() async throws {
        // m-bob's first login is a 503, and every respondent's first submit of question 2 is cut
        // off by a close: each retry must carry its row's values again.
        let server = try await PythonSurveyServer.start(questions: 3, faults: ["login:m-bob": ["503"], "submit:2": ["close"]])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        // A comma, doubled quotes, a line break and a non-ASCII letter, as CSV quotes them.
        _ = try directory.write(
            "people.csv",
            "member,colour,answer.2\r\nm-ann,\"blue, dark\",because\r\nm-bob,red,\r\n\"m-\"\"cy\"\"\",green,sure\r\nm-zoë,\"yellow\nochre\",never\r\n"
        )
        let rows: [(member: String, answers: [Int: String])] = [
            ("m-ann", [1: "blue, dark", 2: "because", 3: "no reason"]),
            ("m-bob", [1: "red", 2: "no reason", 3: "no reason"]),
            ("m-\"cy\"", [1: "green", 2: "sure", 3: "no reason"]),
            ("m-zoë", [1: "yellow\nochre", 2: "never", 3: "no reason"]),
        ]
        let planPath = try directory.write(
            "indep.plan",
            Self.plan(
                port: server.port,
                """
                respondents: 10
                concurrency: 2
                data: people.csv
                data_order: unique
                api:
                  login: POST /session
                  login_body: '{"member": ${row.member}}'
                  capture:
                    token: $.token
                  headers:
                    X-Respondent: ${respondent.id}
                    Authorization: Bearer ${session.token}
                answers:
                  1: ${row.colour}
                  "*": no reason
                """))
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let requests = try server.requests()
        #expect(status == 0, "\(run.standardError)\n\(server.output)")
        let report = try RunReport.read(path: directory.path + "/indep-latest.json")
        // The report says: four rows, each to one respondent, then the rows ran out.
        #expect(report.plan.data == "people.csv: 4 rows, unique")
        #expect(report.stoppedBy == "data")
        #expect(report.respondents.started == 4 && report.respondents.completed == 4, "\(report.respondents)")

        // The server logged in exactly the file's members, each once, m-bob after its 503…
        let logins = requests.filter { $0.step == "login" }
        #expect(logins.filter { $0.outcome == "200" }.compactMap(\.member).sorted() == rows.map(\.member).sorted(), "\(logins)")
        #expect(logins.filter { $0.outcome != "200" }.map(\.member) == ["m-bob"], "\(logins)")
        // …every later call carried a token the server issued, to the member its respondent
        // logged in as…
        var memberOf: [String: String] = [:]
        for login in logins where login.outcome == "200" { memberOf[login.respondent ?? "-"] = login.member }
        #expect(memberOf.count == 4, "\(logins)")
        for request in requests where request.step != "login" {
            #expect(request.member != nil && request.member == memberOf[request.respondent ?? "-"], "\(request)")
        }
        // …and each row's answers arrived as written in the file, on every attempt.
        for row in rows {
            let submits = requests.filter { $0.step == "submit" && $0.member == row.member }
            let answers = Dictionary(
                submits.map { ($0.question ?? 0, $0.answer ?? "") },
                uniquingKeysWith: { first, again in
                    first == again ? first : "\(first) then \(again)"
                })
            #expect(answers == row.answers, "\(row.member): \(submits)")
            #expect(submits.count == 4, "three questions, the second twice: \(submits)")
        }
        // The report counts the same calls, attempts, statuses and retries.
        for step in ["login", "questions", "submit"] { Self.expectReconciled(report, with: requests, step: step) }
        #expect(report.stepReports["login"]?.retries == 1 && report.stepReports["submit"]?.retries == 4)
        #expect(report.answers.submitted == requests.count { $0.step == "submit" && $0.outcome == "200" })
        #expect(Set(requests.map(\.step)) == ["login", "questions", "submit"], "nothing else was asked: \(requests)")
    }
}
