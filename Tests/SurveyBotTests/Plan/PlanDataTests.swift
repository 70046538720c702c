import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// `data:`, the run-time variables and the session keys, as a plan reads them.
@Suite struct PlanDataTests {
    func plan(_ text: String, csv: String = "member,colour,answer.2\nm1,blue,yes\nm2,red,\n") throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/feeds", withIntermediateDirectories: true)
        _ = try directory.write("feeds/people.csv", csv)
        return (directory, try directory.write("p.plan", text))
    }

    func load(_ path: String) -> Result<Plan, PlanErrors> {
        PlanLoader(environment: [:]).load(path: path)
    }

    @Test func dataIsReadRelativeToThePlanWithItsOrder() throws {
        let (directory, path) = try plan(
            lines("data: feeds/people.csv", "data_order: unique", "answers:", "  1: ${row.colour}", "  \"*\": ok"))
        _ = directory
        let plan = try load(path).get()
        #expect(plan.run.data?.columns == ["member", "colour", "answer.2"])
        #expect(plan.run.data?.rows == [["m1", "blue", "yes"], ["m2", "red", ""]])
        #expect(plan.run.data?.order == .unique)
        #expect(plan.run.answers.byQuestion[1] == ["${row.colour}"])
        #expect(plan.dataFile?.lines == [2, 3])
    }

    /// An `answer.<id>` column for a question the builtin server does not ask is never used:
    /// validate says so.
    @Test func anAnswerColumnForAQuestionTheBuiltinServerLacksIsAWarning() throws {
        let (directory, path) = try plan(
            lines("target: builtin", "builtin:", "  questions: 5", "data: feeds/people.csv", "answers:", #"  "*": ok"#),
            csv: "member,answer.2,answer.99\nm1,yes,no\n")
        _ = directory
        let plan = try load(path).get()
        let warnings = plan.warnings.map { "\($0.location.line): \($0.message)" }
        #expect(
            warnings == [
                "4: the data file's column 'answer.99' answers question 99, but the builtin server asks questions 1–5: it is never used"
            ],
            "\(warnings)")
    }

    /// A misspelt run-time prefix is not called an invalid environment variable name: the
    /// error suggests the variable meant.
    @Test func aMisspeltRunTimeVariableIsSuggestedItsName() throws {
        let (directory, path) = try plan(
            lines("data: feeds/people.csv", "api:", "  headers:", "    A: ${sesion.token}", "    B: ${rows.member}", "    C: ${x.y}"))
        _ = directory
        guard case .failure(let errors) = load(path) else {
            Issue.record("valid")
            return
        }
        let messages = errors.diagnostics.map(\.message)
        #expect(messages.contains { $0.hasPrefix("unknown variable '${sesion.token}' (did you mean ${session.token}?)") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("unknown variable '${rows.member}' (did you mean ${row.member}?)") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("unknown variable '${x.y}': run-time variables are") }, "\(messages)")
        #expect(!messages.contains { $0.contains("invalid environment variable name") }, "\(messages)")
    }

    @Test func anUnknownColumnIsAnErrorAtItsPlace() throws {
        let (directory, path) = try plan(lines("data: feeds/people.csv", "api:", "  headers:", "    X-Member: ${row.membr}"))
        _ = directory
        guard case .failure(let errors) = load(path) else {
            Issue.record("valid")
            return
        }
        #expect(errors.diagnostics.count == 1)
        let error = errors.diagnostics[0]
        #expect(error.location.line == 4 && error.location.column == 15, "\(error)")
        #expect(error.message.contains("no column 'membr' (did you mean 'member'?)"), "\(error)")
    }

    @Test func aBadRowIsAnErrorAtItsLineInTheDataFileWithoutItsValue() throws {
        let (directory, path) = try plan(
            lines("data: feeds/people.csv", "api:", "  headers:", "    X-Member: ${row.member}"),
            csv: "member\nm1\n\"m2\r\nX-Evil: yes\"\n")
        let errors = try #require(load(path).failure)
        #expect(errors.diagnostics.count == 1)
        let error = errors.diagnostics[0]
        #expect(error.location.origin == .file(directory.path + "/feeds/people.csv"), "\(error)")
        #expect(error.location.line == 3, "\(error)")
        #expect(error.message.contains("column 'member' holds a carriage return"), "\(error)")
        #expect(!error.description.contains("Evil"), "\(error)")
    }

    @Test func aMalformedDataFileIsAnErrorAtItsLineAndColumn() throws {
        let (directory, path) = try plan(lines("data: feeds/people.csv"), csv: "a,b\n1,2\n3\n")
        let errors = try #require(load(path).failure)
        #expect(
            errors.diagnostics.map(\.location) == [SourceLocation(origin: .file(directory.path + "/feeds/people.csv"), line: 3, column: 1)])
    }

    @Test func aDataFileFromTheEnvironmentIsNamedByItsVariableInErrors() throws {
        let (directory, path) = try plan(lines("data: ${FEED}"), csv: "a,b\n1\n")
        let feed = directory.path + "/feeds/people.csv"
        let errors = try #require(PlanLoader(environment: ["FEED": feed]).load(path: path).failure)
        #expect(errors.diagnostics.map(\.location) == [SourceLocation(origin: .file("${FEED}"), line: 2, column: 1)])
        #expect(!errors.description.contains(feed), "\(errors)")
    }

    @Test func aVariableErrorPointsAtTheVariable() {
        expectSingleError(
            lines("api:", "  questions: GET /q/${respondent.id}/${answer}"), line: 2, column: 38,
            contains: "${answer} can only be used in 'api.submit'")
    }

    @Test func variablesAreCheckedAgainstWhereTheyAreUsed() {
        let diagnostics = expectErrors(
            lines(
                "api:", "  questions: GET /q/${question.id}", "  headers:", "    A: ${session.token}", "    B: ${row.x}",
                "answers:", "  \"*\": ${answer}"))
        let messages = diagnostics.map(\.message)
        #expect(messages.contains { $0.contains("${question.id} can only be used in 'api.submit' and 'api.submit_body'") })
        #expect(messages.contains { $0.contains("${session.token} in 'api.headers.A' needs a capture 'token'") })
        #expect(messages.contains { $0.contains("${row.x} in 'api.headers.B' needs 'data'") })
        #expect(messages.contains { $0.contains("${answer} can only be used") })
    }

    /// A run-time variable in a key that is no request — the name, the report directory — has
    /// no value there; it used to be kept as written: `name: n-${row.member}` named every
    /// report `n-row.member`, whatever the rows.
    @Test func aRunTimeVariableOutsideTheRequestsIsAnErrorAtIt() throws {
        let (directory, path) = try plan(
            lines("name: n-${row.member}", "data: feeds/people.csv", "report:", "  dir: 'out/${respondent.id}'"))
        _ = directory
        guard case .failure(let errors) = load(path) else {
            Issue.record("expected errors")
            return
        }
        let messages = errors.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        #expect(
            messages == [
                "1:9: ${row.member} has no value in 'name': run-time variables are filled in only in the requests "
                    + "(api.questions, api.submit, api.login, their bodies, api.headers; a journey step's request, headers and body) "
                    + "and answers",
                "4:8: ${respondent.id} has no value in 'report.dir': run-time variables are filled in only in the requests "
                    + "(api.questions, api.submit, api.login, their bodies, api.headers; a journey step's request, headers and body) "
                    + "and answers",
            ], "\(messages)")
    }

    /// In the target, the variable is the one error: not also a `{` a URL cannot hold.
    @Test func aRunTimeVariableInTheTargetIsOneError() throws {
        let (directory, path) = try plan(lines("target: http://127.0.0.1:9/${row.member}", "data: feeds/people.csv"))
        _ = directory
        guard case .failure(let errors) = load(path) else {
            Issue.record("expected errors")
            return
        }
        let messages = errors.diagnostics.map { "\($0.location.line): \($0.message)" }
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.hasPrefix("1: ${row.member} has no value in the target: run-time variables") == true, "\(messages)")
    }

    @Test func loginCapturesAndShapesAreRead() {
        guard
            let plan = expectPlan(
                lines(
                    "api:", "  questions_list: data.items", "  question_id: qid", "  question_text: text",
                    #"  submit_body: '{"questionId": ${question.id}, "value": ${answer}}'"#, "  login: /session",
                    #"  login_body: '{"who": ${respondent.id}}'"#, "  capture:", "    token: $.data.token", "    sid: header X-Session-Id",
                    "  headers:", "    Authorization: Bearer ${session.token}", "retry:", "  login:", "    attempts: 5"))
        else { return }
        let api = plan.run.api
        #expect(api.questionsList == JSONPath(names: ["data", "items"]))
        #expect(api.questionID == JSONPath(names: ["qid"]) && api.questionText == JSONPath(names: ["text"]))
        #expect(api.submitBody == #"{"questionId": ${question.id}, "value": ${answer}}"#)
        #expect(api.login == SurveyAPI.Call(method: "POST", path: "/session"))
        #expect(
            api.captures == [
                .init(name: "token", source: .json(JSONPath(names: ["data", "token"]))),
                .init(name: "sid", source: .header("X-Session-Id")),
            ])
        #expect(plan.run.retry[.login].attempts == 5)
    }

    @Test func questionsAndCapturesAreFoundByJSONPaths() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "target: http://127.0.0.1:9", "api:", "  questions_list: $.survey.groups[*].questions[*]", "  question_id: qid",
                    "  question_text: title['en']", "  login: /session", "  capture:", "    key: $", "    first: $.items[0].id",
                    "answers:", "  \"*\": x")))
        #expect(plan.run.api.questionsList == (try JSONPath(parsing: "survey.groups[*].questions[*]")))
        #expect(plan.run.api.questionText == JSONPath(names: ["title", "en"]))
        #expect(plan.run.api.captures.map(\.source.description) == ["$", "$.items[0].id"])
        expectSingleError(
            lines("api:", "  questions_list: $.survey.groups[", "answers:", "  \"*\": x"), line: 2, column: 19,
            contains: "expected a JSON path like data.items or $.items[0].id, found '$.survey.groups[': expected an index")
        expectSingleError(
            lines("api:", "  login: /session", "  capture:", "    key: $.a b"), line: 4, column: 10,
            contains: "expected a JSON path like $.token, $.data[0].token or $ for 'api.capture.key', found '$.a b'")
    }

    @Test func aBodyTemplateThatIsNotJSONIsAnErrorAtIt() {
        expectSingleError(
            lines("api:", #"  submit_body: '{"v": ${answer}'"#), line: 2, column: 16,
            contains: "'api.submit_body' is not JSON once its variables")
    }

    @Test func aLoginThresholdWithoutALoginIsAnError() {
        expectSingleError(
            lines("thresholds:", "  login.p95: \"< 1s\""), line: 2, column: 3, contains: "a 'login.…' threshold needs 'api.login'")
    }

    @Test func aCaptureWithoutALoginIsAnError() {
        expectSingleError(
            lines("api:", "  capture:", "    token: $.token"), line: 2, column: 3, contains: "'api.capture' needs 'api.login'")
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

@Suite struct PlanDataDisplayTests {
    @Test func runTimeVariablesAreKeptForTheRunAndEnvironmentVariablesReadNow() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "api:", #"  submit_body: "{\"a\": ${answer}, \"t\": \"${TEAM}\"}""#, "  headers:",
                    "    X-Team: ${TEAM}-${respondent.id}"),
                environment: ["TEAM": "blue", "answer": "not me"]))
        #expect(plan.run.api.submitBody == #"{"a": ${answer}, "t": "blue"}"#)
        #expect(plan.run.api.headers.first?.value == "blue-${respondent.id}")
    }

    @Test func anEnvironmentVariableInSingleQuotesIsNamedAsSuch() {
        expectSingleError(
            lines("api:", #"  submit_body: '{"t": "${TEAM}"}'"#), line: 2, column: 16,
            contains: "single quotes keep '${TEAM}' as written", environment: ["TEAM": "blue"])
    }

    @Test func aBodyFromTheEnvironmentIsDigestedByItsName() throws {
        let secret = "{\"key\": \"s3cr3t-value\", \"v\": ${answer}}"
        let plan = try #require(expectPlan(lines("api:", "  submit_body: ${BODY}"), environment: ["BODY": secret]))
        #expect(plan.run.api.submitBody == secret)
        #expect(!plan.canonicalText.contains("s3cr3t"))
        #expect(plan.canonicalText.contains("api.submit_body: ${BODY}\n"))
    }
}
