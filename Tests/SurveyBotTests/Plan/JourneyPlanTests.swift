import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// `journey:` — a plan's own steps: what it decodes to, and each mistake at its place.
@Suite struct JourneyPlanTests {
    static let journey = lines(
        "journey:",  // 1
        "  session:",
        "    request: POST /session",
        "    body: '{\"member\": ${respondent.id}}'",
        "    capture:",  // 5
        "      token: $.token",
        "  fetch:",
        "    request: /surveys/${session.token}",
        "    questions: $.survey.groups[*].questions[*]",
        "    question_id: qid",  // 10
        "    headers:",
        "      X-Key: ${session.token}",
        "  answer:",
        "    request: PUT /answers/${question.id}",
        "    runs: per_question",  // 15
        "    body: '{\"value\": ${answer}}'",
        "    retry:",
        "      attempts: 5",
        "  logout:",
        "    request: DELETE /session",  // 20
        "    always: true")

    @Test func aJourneyDecodesStepByStepInOrder() throws {
        let plan = try #require(expectPlan(Self.journey))
        let journey = try #require(plan.run.declaredJourney)
        #expect(journey.names.map(\.name) == ["session", "fetch", "answer", "logout"])
        let steps = journey.steps
        #expect(steps[0].call == SurveyAPI.Call(method: "POST", path: "/session"))
        #expect(steps[0].body == #"{"member": ${respondent.id}}"#)
        #expect(steps[0].captures == [SurveyAPI.Capture(name: "token", source: .json(JSONPath(names: ["token"])))])
        #expect(steps[1].call == SurveyAPI.Call(method: "GET", path: "/surveys/${session.token}"))
        #expect(steps[1].questions?.list.text == "$.survey.groups[*].questions[*]")
        #expect(steps[1].questions?.id == JSONPath(names: ["qid"]))
        #expect(steps[1].questions?.text == JSONPath(names: ["question"]))
        #expect(steps[1].headers == [HTTPHeader(name: "X-Key", value: "${session.token}")])
        #expect(steps[2].runs == .perQuestion)
        #expect(steps.map(\.always) == [false, false, false, true])
        // Each step's own policy: a declared step starts from `retry.questions`' defaults.
        #expect(plan.run.retry[Step("answer")].attempts == 5)
        #expect(plan.run.retry[Step("logout")] == PlanKeys.defaultRetry(nil))
        #expect(!plan.run.retry[Step("logout")].retryOn.description.contains("400"))
        // The run walks it, and every report names its steps and calls.
        #expect(plan.run.journey.names == journey.names)
        #expect(
            RunReport.PlanRecord(plan).api == [
                "session": "POST /session", "fetch": "GET /surveys/${session.token}",
                "answer": "PUT /answers/${question.id}, per question", "logout": "DELETE /session, always",
            ])
    }

    @Test func aStepPerSurveyLaysOutItsAnswersAsTheKeyOrItemSays() throws {
        let base = lines(
            "journey:", "  q:", "    request: /q", "    questions: $", "  add:", "    request: POST /rpc", "    runs: per_survey",
            "    body: '{\"method\": \"add_response\", \"params\": [\"k\", 123456, ${answers}]}'")
        let object = try #require(expectPlan(base + "    answers_key: '123456X1X${question.id}'\n"))
        #expect(object.run.declaredJourney?.steps[1].answers == .object(key: "123456X1X${question.id}"))
        #expect(object.run.declaredJourney?.steps[1].runs == .perSurvey)
        let list = try #require(expectPlan(base + "    answers_item: '{\"id\": ${question.id}, \"text\": ${answer}}'\n"))
        #expect(list.run.declaredJourney?.steps[1].answers == .list(item: #"{"id": ${question.id}, "text": ${answer}}"#))
        let plain = try #require(expectPlan(base))
        #expect(plain.run.declaredJourney?.steps[1].answers == .byID)
        #expect(Set([object.digest, list.digest, plain.digest]).count == 3)
    }

    @Test func aStepTakesAFormOrTextBodyItsOwnTimeoutThinkAndCapturesOfEveryKind() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "journey:", "  page:", "    request: GET /index.php/123456", "    think: 2s", "    timeout: 30s", "    capture:",
                    "      csrf: form YII_CSRF_TOKEN", "      php: cookie PHPSESSID",
                    "      step: 'regex name=\"thisstep\" value=\"([0-9]+)\"'",
                    "  next:", "    request: POST /index.php/123456", "    form:", "      YII_CSRF_TOKEN: ${session.csrf}",
                    "      move: movenext",
                    "      thisstep: ${session.step}", "  xml:", "    request: POST /x", "    text: '<r n=\"${respondent.id}\"/>'",
                    "    content_type: application/xml")))
        let steps = try #require(plan.run.declaredJourney?.steps)
        #expect(steps[0].think == .uniform(DurationRange(fixed: .seconds(2))))
        #expect(steps[0].timeout == .seconds(30))
        #expect(
            steps[0].captures.map(\.source.description) == [
                "form YII_CSRF_TOKEN", "cookie PHPSESSID", #"regex name="thisstep" value="([0-9]+)""#,
            ])
        #expect(steps[1].bodyFormat == .form)
        #expect(steps[1].body == "YII_CSRF_TOKEN=${session.csrf}&move=movenext&thisstep=${session.step}")
        #expect(steps[2].bodyFormat == .text(contentType: "application/xml"))
        #expect(steps[2].body == #"<r n="${respondent.id}"/>"#)
    }

    @Test func thresholdsAndOverridesNameTheDeclaredSteps() throws {
        var overrides = PlanOverrides()
        try overrides.set(assignment: "journey.answer.retry.attempts=2")
        try overrides.set(assignment: "journey.logout.always=false")
        let plan = try #require(
            expectPlan(
                Self.journey + lines("thresholds:", "  answer.p95: \"< 1s\"", "  logout.success_rate: \">= 90%\""), overrides: overrides))
        #expect(plan.run.retry[Step("answer")].attempts == 2)
        #expect(plan.run.declaredJourney?.steps.last?.always == false)
        #expect(plan.thresholds.map(\.name) == ["answer.p95", "logout.success_rate"])
        expectSingleError(
            Self.journey + lines("thresholds:", "  submit.p95: \"< 1s\""), line: 23, column: 3, contains: "unknown threshold scope 'submit'"
        )
    }

    @Test func secretsInAStepLeaveTheDigestAsItWas() throws {
        let text = lines(
            "journey:", "  a:", "    request: POST /a/${TENANT}", "    form:", "      key: ${KEY}", "  b:", "    request: POST /b",
            "    text: ${KEY}")
        let one = try #require(expectPlan(text, environment: ["TENANT": "t1", "KEY": "secret1"]))
        let two = try #require(expectPlan(text, environment: ["TENANT": "t2", "KEY": "secret2"]))
        #expect(one.run.declaredJourney?.steps[0].body == "key=secret1")
        #expect(!one.canonicalText.contains("secret1") && !one.canonicalText.contains("/a/t1"))
        #expect(one.digest == two.digest)
    }

    @Test func anotherJourneyIsAnotherDigest() throws {
        let plan = try #require(expectPlan(Self.journey))
        let other = try #require(expectPlan(Self.journey.replacingOccurrences(of: "attempts: 5", with: "attempts: 4")))
        let renamed = try #require(expectPlan(Self.journey.replacingOccurrences(of: "  logout:", with: "  bye:")))
        let none = try #require(expectPlan(""))
        #expect(Set([plan.digest, other.digest, renamed.digest, none.digest]).count == 4)
    }

    @Test(arguments: [
        // A misspelt key of a step, with a did-you-mean.
        (lines("journey:", "  a:", "    reqest: /x"), 3, 5, "unknown key 'reqest' in 'journey.a' (did you mean 'request'?)"),
        (lines("journey:", "  a:", "    runs: once"), 2, 3, "step 'a' needs a 'request'"),
        (lines("journey:", "  a: /x"), 2, 6, "expected a block of keys under 'journey.a'"),
        (lines("journey:", "  a.b:", "    request: /x"), 2, 3, "a step's name is a letter"),
        (lines("journey:", "  survey:", "    request: /x"), 2, 3, "'survey' names the whole survey"),
        (lines("journey:", "  a:", "    request: /x", "  a:", "    request: /y"), 4, 3, "duplicate key 'a'"),
        (lines("journey:", "  a:", "    request: /x", "    runs: twice"), 4, 11, "runs"),
        (lines("journey:"), 1, 1, "'journey' needs at least one step"),
        (
            lines("journey:", "  a:", "    request: POST /a", "    body: '{}'", "    form:", "      x: 1"), 5, 5,
            "give one body of 'journey.a': 'body' (JSON), 'form' or 'text', not 'body' and 'form'"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    content_type: text/csv"), 4, 5,
            "'journey.a.content_type' goes with 'text'"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    form:", "      x: ${answers}"), 5, 10,
            "${answers} can only be used in the JSON body of a step that runs per_survey or per_page"
        ),
        (lines("journey:", "  a:", "    request: /a", "    capture:", "      t: regex ("), 5, 10, "'(' is not a regular expression"),
        (lines("journey:", "  a:", "    request: /a", "    capture:", "      t: cookie"), 5, 10, "expected a cookie's name after 'cookie'"),
        (
            lines("journey:", "  a:", "    request: /a", "    capture:", "      t: body"), 5, 10,
            "expected a JSON path like $.token, 'header Name', 'cookie Name', 'regex PATTERN' or 'form FIELD'"
        ),
        (lines("journey:", "  a:", "    request: /a", "    timeout: 0s"), 4, 14, "timeout"),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: POST /a", "    runs: per_survey",
                "    text: x"), 8, 5, "a step per survey sends its answers in a JSON 'body' (${answers}) or a 'form', not in 'text'"
        ),
        (
            lines("journey:", "  q:", "    request: /q", "    questions: $", "  p:", "    request: POST /p", "    runs: per_page"), 7, 5,
            "a page loop needs 'journey.p.questions': where its response lists the next page's questions"
        ),
        (
            lines("journey:", "  p:", "    request: POST /p", "    runs: per_page", "    questions: $.questions"), 4, 5,
            "'journey.p' runs per page, but no step before it reads the questions"
        ),
        (lines("journey:", "  q:", "    request: /q", "    pages: 3"), 4, 5, "'journey.q.pages' needs 'runs: per_page'"),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  p:", "    request: POST /p", "    runs: per_page",
                "    questions: $", "    pages: 0"), 9, 12, "pages must be between 1 and 10000, found 0"
        ),
        (lines("journey:", "  q:", "    request: /q", "    questions: regex (x"), 4, 22, "'(x' is not a regular expression"),
        (lines("journey:", "  q:", "    request: /q", "    questions: 'regex  (x'"), 4, 24, "'(x' is not a regular expression"),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: POST /a", "    runs: per_survey",
                #"    body: '{"all": "${answers}"}'"#), 8, 11,
            "'journey.a.body': ${answers} goes only in a JSON body, as a value of its own"
        ),
        // A misspelt value is the one error: the checks across steps wait for it.
        (
            lines(
                "journey:", "  start:", "    request: /q", "    questions: $", "  p:", "    request: POST /p", "    runs: per_pages",
                "    questions: $.next"), 7, 11, "did you mean 'per_page'?"
        ),
        (
            lines("journey:", "  q:", "    request: /q", "    questions: regex x(.*)", "    question_id: id"), 5, 5,
            "'journey.q.question_id' and 'question_text' go with a JSON path"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    form:", "      \"*\": x"), 5, 12,
            "'journey.a.form.*' takes a form captured whole, '${session.NAME}' with 'capture: NAME: form *', found 'x'"
        ),
        (
            lines(
                "journey:", "  a:", "    request: /a", "    capture:", "      t: form token", "  b:", "    request: POST /b", "    form:",
                "      \"*\": ${session.t}"), 8, 5,
            "'journey.b.form' puts first the fields of '${session.t}', which no step captures as 'form *'"
        ),
        (lines("journey:", "  a:", "    request: /x", "api:", "  submit: /y"), 5, 3, "'api.submit' is not used with 'journey'"),
        (
            lines("journey:", "  a:", "    request: /x", "retry:", "  submit:", "    attempts: 2"), 5, 3,
            "'retry.submit' is not used with 'journey': give a step's policy in its own block ('journey.submit.retry')"
        ),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: /a", "    runs: per_question",
                "  b:", "    request: /b", "    runs: per_survey"), 10, 5,
            "a journey has one step that sends the answers, and 'a' already does"
        ),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: POST /a", "    runs: per_survey",
                "    body: '{\"x\": 1}'"), 8, 5, "'journey.a.body' needs ${answers}"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    body: '{\"x\": ${answers}}'"), 4, 11,
            "${answers} can only be used in the JSON body of a step that runs per_survey or per_page, not in 'journey.a.body'"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    answers_key: 'X${question.id}'"), 4, 5,
            "'journey.a.answers_key' needs 'runs: per_survey'"
        ),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: POST /a", "    runs: per_survey",
                "    answers_key: k", "    answers_item: '{}'"), 8, 5,
            "give 'journey.a.answers_key' (an object) or 'answers_item' (a list), not both"
        ),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: POST /a", "    runs: per_survey",
                "    answers_item: '{\"v\": ${answers}}'"), 8, 19,
            "${answers} can only be used in the JSON body of a step that runs per_survey"
        ),
        (
            lines("journey:", "  a:", "    request: /a", "    runs: per_question", "  q:", "    request: /q", "    questions: $"), 4, 5,
            "'journey.a' runs per question, but no step before it reads the questions"
        ),
        (lines("journey:", "  q:", "    request: /q", "    question_id: qid"), 4, 5, "need 'journey.q.questions'"),
        (
            lines("journey:", "  q:", "    request: /q", "    questions: $", "  r:", "    request: /r", "    questions: $"), 7, 5,
            "only one step reads the questions, and 'q' already does"
        ),
        (
            lines(
                "journey:", "  q:", "    request: /q", "    questions: $", "  a:", "    request: /a", "    runs: per_question",
                "    always: true"), 7, 5, "a step per question cannot run 'always'"
        ),
        // Templates: where each variable has a value.
        (
            lines("journey:", "  a:", "    request: /a/${session.key}", "  b:", "    request: /b", "    capture:", "      key: $.k"), 3, 17,
            "${session.key} cannot be used in 'journey.a.request': no step before 'a' captures 'key'"
        ),
        (
            lines("journey:", "  a:", "    request: /a", "    headers:", "      X-K: ${session.nope}"), 5, 12,
            "${session.nope} in 'journey.a.headers.X-K' needs a capture 'nope' in a step's 'capture'"
        ),
        (
            lines("journey:", "  a:", "    request: POST /a", "    body: '{\"q\": ${question.id}}'"), 4, 11,
            "${question.id} can only be used in a step that runs per_question, or the 'answers_key', 'answers_item' or 'answers_value' of a step per survey or per page, not in 'journey.a.body'"
        ),
        (lines("journey:", "  a:", "    request: POST /a", "    body: '{\"q\": }'"), 4, 11, "'journey.a.body' is not JSON"),
    ])
    func aJourneyMistakeIsAnErrorAtItsPlace(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        expectSingleError(text, line: line, column: column, contains: message)
    }

    @Test func expectReadsStatusesAndChecksLineByLine() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "journey:", "  rpc:", "    request: POST /rpc", "    expect:", "      - status in [200, 2xx]",
                    "      - $.error not exists",
                    "      - $.result.status != \"Invalid session key\"", "      - body not matches (?i)invalid",
                    "      - header Content-Type contains json", "      - '$[''odd key''] == 3'")))
        let expectation = try #require(plan.run.declaredJourney?.steps.first?.expect)
        #expect(expectation.statuses?.description == "[200, 2xx]")
        #expect(
            expectation.checks.map(\.description) == [
                "$.error not exists", #"$.result.status != "Invalid session key""#, "body not matches (?i)invalid",
                "header Content-Type contains json", "$['odd key'] == 3",
            ])
        #expect(expectation.checks[0].test == .absent)
        #expect(expectation.checks[1].test == .notEquals(.string("Invalid session key")))
        #expect(expectation.checks[4].test == .equals(.integer(3)))
        #expect(expectation.checks[3].subject == .header("Content-Type"))
        let one = try #require(expectPlan(lines("journey:", "  a:", "    request: /a", "    expect: $.ok == true")))
        #expect(one.run.declaredJourney?.steps.first?.expect?.checks.first?.test == .equals(.bool(true)))
    }

    @Test(arguments: [
        ("stats == 200", "a check starts with 'status', 'body', 'header NAME' or a JSON path"),
        ("status != 200", "expected 'status == 200' or 'status in [200, 204]'"),
        ("status == 6xx", "expected status codes (100–599) or classes (1xx–5xx)"),
        ("$.x equals 3", "expected 'exists', 'not exists', '==', '!=', 'contains', 'not contains', 'matches' or 'not matches' after '$.x'"),
        ("$.x ==", "'$.x ==' needs a value after it"),
        ("body matches (", "'(' is not a regular expression"),
        ("$.[ == 1", "'$.[ == 1' is not a JSON path"),
        ("header == x", "expected a header name after 'header'"),
    ])
    func aCheckThatCannotBeReadIsAnErrorAtIt(_ check: String, _ message: String) {
        expectSingleError(
            lines("journey:", "  a:", "    request: /a", "    expect:", "      - \(check)"), line: 5, column: 9, contains: message)
    }

    @Test func aStepHasOneStatusLine() {
        expectSingleError(
            lines("journey:", "  a:", "    request: /a", "    expect:", "      - status == 200", "      - status == 204"), line: 6,
            column: 9,
            contains: "has one status line, and line 5 is one")
    }

    @Test func aVariableOfAStepOutsideItsRequestsIsAnError() {
        expectSingleError(
            lines("journey:", "  a:", "    request: /a", "    questions: '$.${row.x}'"), line: 4, column: 16,
            contains: "${row.x} has no value in 'journey.a.questions'")
    }
}

/// What a report says of a declared journey: each step's call, when it runs, and what it expects.
@Suite struct JourneyPlanRecordTests {
    @Test func aReportsPlanSaysHowEachDeclaredStepRuns() throws {
        let text = try String(contentsOfFile: repositoryPath("plans/builtin-pages.plan"), encoding: .utf8)
        let record = RunReport.PlanRecord(try #require(expectPlan(text)))
        #expect(record.api["start"] == "POST /sessions")
        #expect(record.api["page"] == "POST /sessions/${session.session}, per page (at most 10), expect status 200; $.done exists")
        #expect(record.api["close"] == "DELETE /sessions/${session.session}, always, expect status 204")
        #expect(record.builtin == "7 questions, fail 10%, api pages")
        let secret = lines("journey:", "  a:", "    request: /a", "    expect:", "      - $.user == ${WHO}")
        let hidden = RunReport.PlanRecord(try #require(expectPlan(secret, environment: ["WHO": "s3cret"])))
        #expect(hidden.api["a"] == "GET /a, expect 1 check")
    }

    /// A header or a form field named as a step's key is none of it: `journey.s.headers.body`
    /// is a header, filled in once per request, not the step's body.
    @Test func aHeaderNamedAsAStepsKeyIsAHeader() {
        let step = lines(
            "journey:", "  q:", "    request: /q", "    questions: $", "  s:", "    request: POST /s", "    runs: per_survey",
            "    body: '{\"all\": ${answers}}'", "    headers:")
        expectSingleError(
            step + "      answers_key: ${question.id}\n", line: 10, column: 20,
            contains: "${question.id} can only be used in a step that runs per_question")
        expectSingleError(
            step + "      body: ${answers}\n", line: 10, column: 13, contains: "${answers} can only be used in the JSON body of a step")
    }
}
