import Testing

@testable import SurveyBot

/// Plans whose digests were written before: their canonical form is pinned here, so that a
/// change to how the digest is made cannot change the digest of a plan already run (`diff`
/// and `merge` would call one plan two).
@Suite struct PlanDigestStabilityTests {
    /// Most top-level keys, the default journey's.
    static let defaultJourney = lines(
        "name: pinned", "target: http://127.0.0.1:9/base", "respondents: 5", "duration: 1m", "grace: 2s", "timeout: 3s",
        "connect_timeout: 1s", "max_body: 2KiB", "think: 10ms..20ms", "pace: 1s", "cookies: false", "order: reverse", "seed: 7",
        "api:", "  login: POST /session", "  login_body: '{\"u\": ${respondent.id}}'", "  capture:", "    token: $.token",
        "  questions: GET /q?token=abc", "  questions_list: data.items", "  question_id: qid", "  question_text: text",
        "  submit: PUT /a", "  submit_body: '{\"id\": ${question.id}, \"v\": ${answer}}'", "  headers:",
        "    Authorization: Bearer ${session.token}", "answers:", "  \"*\": fine", "  \"2\": [a, b]", "retry:", "  budget: 20%",
        "  budget_min: 4", "  submit:", "    attempts: 5", "    backoff: linear", "    on: [timeout, 503]", "thresholds:",
        "  submit.p95: \"< 300ms\"", "tls:", "  verify: false", "  server_name: example.test", "  min_version: \"1.3\"")

    /// The open model against the builtin server, every fault given.
    static let builtinFaults = lines(
        "target: builtin", "rate: 5/s", "duration: 30s", "ramp:", "  - 10s: 10/s", "http: \"2\"", "connections: shared", "builtin:",
        "  questions: 3", "  fail_rate: 5%", "  error_rate: 1%", "  cold_start: 2", "  latency: 1ms..2ms", "  reset_rate: 1%",
        "  malformed_rate: 1%", "  slow_rate: 1%", "  trickle: 10ms", "  hang_rate: 1%", "  goaway_rate: 1%", "  window: 1024",
        "  window_delay: 5ms", "  http2: true", "answers:", "  \"*\": ok")

    /// A declared journey: a login, the questions, every answer at once, a text body, a logout.
    static let journey = lines(
        "name: journey-pinned", "journey:", "  login:", "    request: POST /session/${TENANT}",
        "    body: '{\"member\": ${respondent.id}}'", "    timeout: 5s", "    think: 1s", "    idempotent: true", "    capture:",
        "      token: $.token", "      page: form *", "    expect: [status == 200, \"$.error not exists\"]", "    retry:",
        "      attempts: 2", "      on: [timeout]", "  fetch:", "    request: /surveys/${session.token}", "    headers:",
        "      X-Key: ${session.token}", "    questions: $.survey.groups[*].questions[*]", "    question_id: qid",
        "    question_text: title", "  send:", "    request: POST /rpc", "    runs: per_survey", "    body: '{\"answers\": ${answers}}'",
        "    answers_key: 'X${question.id}'", "    answers_value: '{\"v\": ${answer}}'", "  xml:", "    request: POST /x",
        "    text: ${XML}", "    content_type: application/xml", "  bye:", "    request: DELETE /session", "    always: true")

    /// A page loop posting a form, the first page's questions read by a regex.
    static let pageLoop = lines(
        "journey:", "  open:", "    request: GET /start", "    questions: regex <q id=\"([a-z0-9]+)\">([^<]*)</q>", "    capture:",
        "      page: form *", "  page:", "    request: POST /next", "    runs: per_page", "    pages: 7", "    questions: $.questions",
        "    form:", "      \"*\": ${session.page}", "      move: next", "    answers_key: 'a${question.id}'")

    /// A step per survey whose answers are a list.
    static let answerList = lines(
        "journey:", "  q:", "    request: /q", "    questions: $", "  add:", "    request: POST /rpc", "    runs: per_survey",
        "    body: '{\"params\": ${answers}}'", "    answers_item: '{\"id\": ${question.id}, \"text\": ${answer}}'")

    /// Each plan, the environment it is read with, and its digest as first written.
    static let plans: [(name: String, text: String, environment: [String: String], digest: String)] = [
        ("defaultJourney", defaultJourney, [:], "sha256:b57489ef75c2a82985597414fef2228e8f0936330caf0c9cb5b796f242547972"),
        ("builtinFaults", builtinFaults, [:], "sha256:a7e5699b2d2b1f1a2c45a1eecd6ccae338c63d66be1fdb0624f1bc015380bc7c"),
        (
            "journey", journey, ["TENANT": "t1", "XML": "<r/>"],
            "sha256:164f659605d419006f8e3bcab67c5ae14c74c7a55856e0fecdf1f14c1275f1d8"
        ),
        ("pageLoop", pageLoop, [:], "sha256:bc12e7f7a0f3baaa474f03560159d40ca6e988220da08ce27a9b83156f2f6de8"),
        ("answerList", answerList, [:], "sha256:bb4cfca54fbb3681ec21b20956e5c5608330e1871e37aa20adf9a3bb65be9caa"),
    ]

    @Test func theDigestsOfPlansWrittenBeforeStayAsTheyWere() throws {
        for (name, text, environment, digest) in Self.plans {
            let plan = try #require(expectPlan(text, environment: environment))
            #expect(plan.digest == digest, "\(name)'s digest changed; its canonical form is now:\n\(plan.canonicalText)")
        }
    }

    /// The step of a page loop, as its digest was first written: every key of a step shows.
    @Test func aPageLoopsStepIsDigestedAsFirstWritten() throws {
        let plan = try #require(expectPlan(Self.pageLoop))
        let journey = plan.canonicalEntries.first { $0.key == "journey" }?.value
        #expect(
            journey
                == "[open: {request: GET /start, runs: once, headers: [], body: none, body_format: json, timeout: run, think: run, "
                + #"questions: regex <q id="([a-z0-9]+)">([^<]*)</q>, capture: [page: form *], expect: none, "#
                + "answers: object ${question.id}, idempotent: true, always: false, retry.attempts: 3, retry.backoff: exponential, "
                + "retry.initial: 200ms, retry.max: 5s, retry.multiplier: 2.0, retry.jitter: full, retry.on: [5xx, timeout, connection]}, "
                + "page: {request: POST /next, runs: per_page, headers: [], body: move=next, body_format: form, timeout: run, "
                + "think: run, questions: $.questions id question, capture: [], expect: none, answers: object a${question.id}, "
                + "idempotent: false, always: false, pages: 7, form_fields: page, retry.attempts: 3, retry.backoff: exponential, "
                + "retry.initial: 200ms, retry.max: 5s, retry.multiplier: 2.0, retry.jitter: full, retry.on: [5xx, timeout, connection]}]")
    }
}
