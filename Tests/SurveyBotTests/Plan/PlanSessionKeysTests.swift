import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// `think` distributions, `pace`, `cookies` and `builtin.login`: what the plan says and where
/// it is wrong.
@Suite struct PlanSessionKeysTests {
    @Test(arguments: [
        ("think: 200ms..1s", ThinkTime.uniform(DurationRange(.milliseconds(200), .seconds(1)))),
        ("think: 300ms", .uniform(DurationRange(fixed: .milliseconds(300)))),
        ("think: normal(500ms, 100ms)", .normal(mean: .milliseconds(500), deviation: .milliseconds(100))),
        ("think: normal( 1s ,0 )", .normal(mean: .seconds(1), deviation: .zero)),
        ("think: exponential(500ms)", .exponential(mean: .milliseconds(500))),
        ("think: Exponential(2s)", .exponential(mean: .seconds(2))),
        ("think: lognormal(500ms, 2s)", .lognormal(median: .milliseconds(500), p90: .seconds(2))),
    ])
    func thinkTakesARangeOrADistribution(_ line: String, _ think: ThinkTime) throws {
        let plan = try #require(expectPlan(line))
        #expect(plan.run.think == think)
        // The report and the digest spell it as the plan does, normalised.
        #expect(RunReport.PlanRecord(plan).think == think.description)
    }

    @Test(arguments: [
        ("think: normal(500ms)", 8, "normal takes a mean and a standard deviation, as in normal(500ms, 100ms)"),
        ("think: normal(500ms, 100ms, 1s)", 8, "normal takes a mean and a standard deviation"),
        ("think: exponential()", 8, "exponential takes a mean, as in exponential(500ms)"),
        ("think: normal(-500ms, 100ms)", 15, "durations cannot be negative"),
        ("think: exponential(-1s)", 20, "durations cannot be negative"),
        ("think: lognormal(2s, 500ms)", 22, "a log-normal's 90th percentile (500ms) cannot be below its median (2s)"),
        ("think: lognormal(0, 1s)", 18, "a log-normal's median must be greater than 0"),
        ("think: normal(500ms, lots)", 22, "expected a duration like 500ms in normal(…), found 'lots'"),
        ("think: 'normal( 500ms,  lots)'", 25, "expected a duration like 500ms in normal(…), found 'lots'"),
        ("think: gaussian(500ms, 100ms)", 8, "unknown distribution 'gaussian'"),
        ("think: nromal(500ms, 100ms)", 8, "did you mean 'normal'?"),
        ("think: normal(500ms, 100ms", 8, "lacks its closing parenthesis"),
    ])
    /// At the value, or at the argument that is wrong.
    func malformedDistributionsAreErrorsAtTheirValue(_ line: String, _ column: Int, _ message: String) {
        expectSingleError(lines("name: x", line), line: 2, column: column, contains: message)
    }

    @Test func paceIsAPositiveDuration() throws {
        #expect(try #require(expectPlan("pace: 2s")).run.pace == .seconds(2))
        #expect(try #require(expectPlan("name: x")).run.pace == nil)
        expectSingleError(lines("pace: 0s"), line: 1, column: 7, contains: "pace must be greater than 0")
        expectSingleError(lines("pace: soon"), line: 1, column: 7, contains: "expected a duration")
    }

    @Test func cookiesAreOnUnlessTurnedOff() throws {
        #expect(try #require(expectPlan("name: x")).run.cookies)
        let off = try #require(expectPlan("cookies: false"))
        #expect(off.run.cookies == false)
        #expect(RunReport.PlanRecord(off).cookies == false)
        #expect(RunReport.PlanRecord(try #require(expectPlan("name: x"))).cookies == nil)
        expectSingleError(lines("cookies: maybe"), line: 1, column: 10, contains: "expected true or false")
    }

    @Test func builtinLoginTurnsTheServersSessionsOn() throws {
        let plan = try #require(expectPlan(lines("builtin:", "  login: true")))
        #expect(plan.builtin.login)
        #expect(RunReport.PlanRecord(plan).builtin?.contains("login") == true)
        #expect(try #require(expectPlan("name: x")).builtin.login == false)
    }
    /// The warnings of a plan read from `text`, as `line:column: message`.
    private func warnings(_ text: String) throws -> [String] {
        let plan = try PlanLoader(environment: [:]).load(text: text, path: "x.plan").get()
        return plan.warnings.map { "\($0.location.line):\($0.location.column): \($0.message)" }
    }

    @Test func aBuiltinServerWithSessionsButAPlanWithoutLoginIsAWarning() throws {
        #expect(
            try warnings(lines("builtin:", "  login: true")) == [
                "2:3: 'builtin.login' is on but the plan has no 'api.login': the builtin server answers 401 to every survey call without a session (add 'api.login: POST /session', capture '$.token' and send it as 'Authorization: Bearer ${session.token}')"
            ])
        // Another target does not use the builtin server.
        #expect(try warnings(lines("target: http://127.0.0.1:9", "builtin:", "  login: true")).isEmpty)
    }

    @Test func aLoginAgainstTheBuiltinServerWithoutSessionsIsAWarning() throws {
        #expect(
            try warnings(lines("api:", "  login: POST /session")) == [
                "2:3: 'api.login' logs in, but the builtin server has no sessions: its POST /session is a 404 and every respondent would be abandoned (set 'builtin.login: true')"
            ])
        #expect(try warnings(lines("target: http://127.0.0.1:9", "api:", "  login: POST /session")).isEmpty)
    }

    @Test func theBuiltinServersSessionsNeedItsLoginPathAndTheCookies() throws {
        let session = lines(
            "api:", "  login: POST /session", "  capture:", "    token: $.token", "  headers:",
            "    Authorization: Bearer ${session.token}",
            "builtin:", "  login: true")
        #expect(try warnings(session).isEmpty)
        #expect(
            try warnings(session.replacingOccurrences(of: "POST /session", with: "POST /login")) == [
                "2:10: the builtin server's login is POST /session, not POST /login: every respondent would be abandoned"
            ])
        #expect(
            try warnings(session + "cookies: false\n") == [
                "9:10: 'cookies: false' with 'builtin.login': the builtin server answers 401 to a call without its session cookie"
            ])
    }
}

/// The builtin server's other API shapes name their questions as they serve them.
@Suite struct BuiltinShapeKeysTests {
    private func warnings(_ text: String) throws -> [String] {
        let plan = try #require(expectPlan(text))
        return plan.warnings.map { "\($0.location.line):\($0.location.column): \($0.message)" }
    }

    static let journey = lines(
        "journey:", "  start:", "    request: POST /sessions", "    questions: $.questions", "    question_text: text",
        "    capture:", "      s: $.session", "  page:", "    request: POST /sessions/${session.s}", "    runs: per_page",
        "    questions: $.questions", "    question_text: text")

    @Test func thePagesShapesQuestionsAreQ1ToQn() throws {
        let base = Self.journey + lines("builtin:", "  api: pages", "  questions: 2")
        #expect(try warnings(base + lines("answers:", "  q1: a", "  q2: b")).isEmpty)
        #expect(
            try warnings(base + lines("answers:", "  q1: a", "  q2: b", "  \"1\": c")) == [
                "19:3: 'answers.1' answers question 1, but the builtin server asks questions q1–q2: it is never used"
            ])
        expectSingleError(
            base + lines("answers:", "  q1: a"), line: 16, column: 1,
            contains: "no answer for question q2 of the builtin server's 2, and no \"*\" answer for the rest")
    }
}
