import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// The plan digest is made from the tables of keys: every key of `PlanKeys.all` and of a
/// journey's step (`JourneyKeys.all`, and a step's `retry`) set to two values gives two
/// digests — but the keys left out on purpose (`Plan.digestLeavesOut`), which give one.
@Suite struct PlanDigestKeyTests {
    /// Plan lines and `--set` assignments that make one value of a key.
    struct Value {
        var set: [String] = []
        var lines = ""
    }

    /// The plan every top-level variant starts from: valid with any one key given.
    static let base = lines(
        "name: digest", "target: builtin", "respondents: 5", "duration: 1m", "answers:", "  \"*\": fine", "retry:", "  budget: 20%")

    /// Two values of a key by `--set`, with the assignments both need first.
    static func set(_ key: String, _ a: String, _ b: String, with given: [String] = []) -> (Value, Value) {
        (Value(set: given + ["\(key)=\(a)"]), Value(set: given + ["\(key)=\(b)"]))
    }

    /// Two values of a key by plan lines, with the assignments both need.
    static func written(_ a: String, _ b: String, with given: [String] = []) -> (Value, Value) {
        (Value(set: given, lines: a), Value(set: given, lines: b))
    }

    /// For every value key of `PlanKeys.all`, two valid values, files made in `directory`.
    static func topLevel(_ directory: TemporaryDirectory) throws -> [String: (Value, Value)] {
        let pemA = try directory.write("a.pem", "a")
        let pemB = try directory.write("b.pem", "b")
        let pemC = try directory.write("c.pem", "c")
        let questionsA = try directory.write("a.json", #"[{"id": 1, "question": "Why?"}]"#)
        let questionsB = try directory.write("b.json", #"[{"id": 1, "question": "Why not?"}]"#)
        let dataA = try directory.write("a.csv", "a\n1\n")
        let dataB = try directory.write("b.csv", "a\n2\n")
        let journey = "journey:\n  fetch:\n    request: /questions\n"
        var table: [String: (Value, Value)] = [:]
        table["name"] = set("name", "one", "two")
        table["target"] = set("target", "http://127.0.0.1:9", "http://127.0.0.1:10")
        table["respondents"] = set("respondents", "6", "7")
        table["concurrency"] = set("concurrency", "3", "4")
        table["duration"] = set("duration", "2m", "3m")
        table["grace"] = set("grace", "1s", "2s")
        table["rate"] = set("rate", "5/s", "6/s")
        table["ramp"] = written("ramp:\n  - 10s: 5/s\n", "ramp:\n  - 10s: 6/s\n", with: ["rate=5/s"])
        table["timeout"] = set("timeout", "1s", "2s")
        table["connect_timeout"] = set("connect_timeout", "1s", "2s")
        table["max_body"] = set("max_body", "2KiB", "3KiB")
        table["http"] = set("http", "1.1", "2")
        table["connections"] = set("connections", "per_respondent", "shared")
        table["proxy"] = set("proxy", "http://127.0.0.1:3128", "http://user:secret@127.0.0.1:3129")
        table["think"] = set("think", "1ms..2ms", "1ms..3ms")
        table["pace"] = set("pace", "1s", "2s")
        table["cookies"] = set("cookies", "true", "false")
        table["order"] = set("order", "sequential", "reverse")
        table["seed"] = set("seed", "7", "8")
        table["data"] = set("data", dataA, dataB)
        table["data_order"] = set("data_order", "unique", "random", with: ["data=\(dataA)"])
        table["journey"] = written(journey, journey.replacingOccurrences(of: "/questions", with: "/survey"))
        table["answers"] = set("answers.1", "red", "blue")
        let typed = "journey:\n  fetch:\n    request: /questions\n    questions: $\n    question_type: kind\n"
        table["types"] = written(typed + "types:\n  MC:\n    answer: red\n", typed + "types:\n  MC:\n    answer: words(1..2)\n")
        table["skip_optional"] = set("skip_optional", "10%", "20%")
        table["thresholds"] = set("thresholds.submit.p95", "< 300ms", "< 400ms")
        table["api.questions"] = set("api.questions", "GET /q", "GET /r")
        table["api.submit"] = set("api.submit", "PUT /a", "PUT /b")
        table["api.questions_list"] = set("api.questions_list", "data.items", "data.list")
        table["api.question_id"] = set("api.question_id", "qid", "key")
        table["api.question_text"] = set("api.question_text", "text", "title")
        table["api.submit_body"] = set("api.submit_body", #"{"a": 1}"#, #"{"b": 1}"#)
        table["api.login"] = set("api.login", "/session", "/login")
        table["api.login_body"] = set("api.login_body", #"{"a": 1}"#, #"{"b": 1}"#, with: ["api.login=/session"])
        table["api.capture"] = written(
            "api:\n  capture:\n    token: $.token\n", "api:\n  capture:\n    token: $.t\n", with: ["api.login=/session"])
        table["retry.budget"] = set("retry.budget", "30%", "40%")
        table["retry.budget_min"] = set("retry.budget_min", "4", "5")
        table["tls.verify"] = set("tls.verify", "true", "false")
        table["tls.ca_file"] = set("tls.ca_file", pemA, pemB)
        table["tls.client_cert"] = set("tls.client_cert", pemA, pemB, with: ["tls.client_key=\(pemC)"])
        table["tls.client_key"] = set("tls.client_key", pemA, pemB, with: ["tls.client_cert=\(pemC)"])
        table["tls.server_name"] = set("tls.server_name", "a.test", "b.test")
        table["tls.min_version"] = set("tls.min_version", "1.2", "1.3")
        table["engine.threads"] = set("engine.threads", "2", "3")
        table["builtin.questions"] = set("builtin.questions", "3", "4")
        table["builtin.questions_file"] = set("builtin.questions_file", questionsA, questionsB)
        table["builtin.cold_start"] = set("builtin.cold_start", "2", "3")
        table["builtin.latency"] = set("builtin.latency", "1ms", "2ms")
        table["builtin.trickle"] = set("builtin.trickle", "1s", "2s")
        table["builtin.http2"] = set("builtin.http2", "true", "false")
        table["builtin.window"] = set("builtin.window", "16", "32")
        table["builtin.window_delay"] = set("builtin.window_delay", "10ms", "20ms")
        table["builtin.tls"] = set("builtin.tls", "true", "false")
        table["builtin.login"] = set("builtin.login", "true", "false")
        table["report.formats"] = set("report.formats", "[junit]", "[csv]")
        table["report.dir"] = set("report.dir", "/tmp/a", "/tmp/b")
        table["report.interval"] = set("report.interval", "1s", "2s")
        table["report.lag_limit"] = set("report.lag_limit", "10ms", "20ms")
        table["report.include_answers"] = set("report.include_answers", "true", "false")
        // A header's value is never digested: another header is another plan.
        table["api.headers"] = (Value(set: ["api.headers.X-One=a"]), Value(set: ["api.headers.X-Two=a"]))
        table["builtin.api"] = (
            Value(set: ["builtin.api=pages"], lines: journey), Value(set: ["builtin.api=one_post"], lines: journey)
        )
        table["builtin.survey"] = (
            Value(set: ["builtin.api=pages", "builtin.survey=plain"], lines: journey),
            Value(set: ["builtin.api=pages", "builtin.survey=typed"], lines: journey)
        )
        for rate in ["fail_rate", "error_rate", "reset_rate", "malformed_rate", "slow_rate", "hang_rate", "goaway_rate"] {
            table["builtin.\(rate)"] = set("builtin.\(rate)", "5%", "6%")
        }
        for step in ["login", "questions", "submit"] {
            for (key, (a, b)) in Self.retry {
                table["retry.\(step).\(key)"] = set("retry.\(step).\(key)", a, b)
            }
        }
        return table
    }

    /// Two values of each key of a retry policy.
    static let retry: [String: (String, String)] = [
        "attempts": ("8", "9"), "backoff": ("linear", "constant"), "initial": ("10ms", "20ms"), "max": ("8s", "9s"),
        "multiplier": ("3", "4"), "jitter": ("none", "equal"), "on": ("[timeout]", "[connection]"),
    ]

    /// For every key of a journey's step, two valid values of it in a step's lines, after a step
    /// that reads the questions when `afterQuestions`.
    static let stepKeys: [String: (afterQuestions: Bool, a: [String], b: [String])] = {
        let perSurvey = ["runs: per_survey", "body: '{\"all\": ${answers}}'"]
        var table: [String: (afterQuestions: Bool, a: [String], b: [String])] = [
            "request": (false, ["request: POST /a"], ["request: POST /b"]),
            "runs": (true, ["runs: once"], ["runs: per_question"]),
            "headers": (false, ["headers:", "  X-One: a"], ["headers:", "  X-Two: a"]),
            "body": (false, ["body: '{\"a\": 1}'"], ["body: '{\"b\": 1}'"]),
            "form": (false, ["form:", "  a: 1"], ["form:", "  b: 1"]),
            "text": (false, ["text: a"], ["text: b"]),
            "content_type": (false, ["text: a", "content_type: application/xml"], ["text: a", "content_type: text/csv"]),
            "timeout": (false, ["timeout: 1s"], ["timeout: 2s"]),
            "think": (false, ["think: 1s"], ["think: 2s"]),
            "pages": (
                true, ["runs: per_page", "questions: $.next", "body: '{\"all\": ${answers}}'", "pages: 3"],
                ["runs: per_page", "questions: $.next", "body: '{\"all\": ${answers}}'", "pages: 4"]
            ),
            "answers_key": (true, perSurvey + ["answers_key: 'a${question.id}'"], perSurvey + ["answers_key: 'b${question.id}'"]),
            "answers_value": (
                true, perSurvey + ["answers_value: '{\"a\": ${answer}}'"], perSurvey + ["answers_value: '{\"b\": ${answer}}'"]
            ),
            "answers_item": (true, perSurvey + ["answers_item: '{\"a\": ${answer}}'"], perSurvey + ["answers_item: '{\"b\": ${answer}}'"]),
            "questions": (false, ["questions: $.a"], ["questions: regex id=([0-9]+)"]),
            "question_id": (false, ["questions: $", "question_id: a"], ["questions: $", "question_id: b"]),
            "question_text": (false, ["questions: $", "question_text: a"], ["questions: $", "question_text: b"]),
            "question_choices": (false, ["questions: $", "question_choices: a"], ["questions: $", "question_choices: b"]),
            "choice_id": (false, ["questions: $", "choice_id: a"], ["questions: $", "choice_id: b"]),
            "choice_label": (false, ["questions: $", "choice_label: a"], ["questions: $", "choice_label: b"]),
            "question_type": (false, ["questions: $", "question_type: a"], ["questions: $", "question_type: b"]),
            "question_required": (false, ["questions: $", "question_required: a"], ["questions: $", "question_required: b"]),
            "question_min": (false, ["questions: $", "question_min: a"], ["questions: $", "question_min: b"]),
            "question_max": (false, ["questions: $", "question_max: a"], ["questions: $", "question_max: b"]),
            "question_group": (
                false, ["questions: $.p[*].q[*]", "question_group: $.p[*]"], ["questions: $.p[*].q[*]", "question_group: $.p"]
            ),
            "group_id": (
                false, ["questions: $.p[*].q[*]", "question_group: $.p[*]", "group_id: a"],
                ["questions: $.p[*].q[*]", "question_group: $.p[*]", "group_id: b"]
            ),
            "answers_group": (
                true,
                [
                    "runs: per_page", "questions: $.p[*].q[*]", "question_group: $.p[*]", "body: '{\"all\": ${answers}}'",
                    "answers_group: '{\"a\": ${answers}}'",
                ],
                [
                    "runs: per_page", "questions: $.p[*].q[*]", "question_group: $.p[*]", "body: '{\"all\": ${answers}}'",
                    "answers_group: '{\"b\": ${answers}}'",
                ]
            ),
            "capture": (false, ["capture:", "  t: $.a"], ["capture:", "  t: header X-T"]),
            "expect": (false, ["expect: status == 200"], ["expect: status == 201"]),
            "idempotent": (false, ["idempotent: true"], ["idempotent: false"]),
            "always": (false, ["always: true"], ["always: false"]),
        ]
        for (key, (a, b)) in retry {
            table["retry.\(key)"] = (false, ["retry:", "  \(key): \(a)"], ["retry:", "  \(key): \(b)"])
        }
        return table
    }()

    /// A journey whose second step, `s`, has `lines`.
    static func journey(afterQuestions: Bool, _ lines: [String]) -> String {
        let first = ["journey:", "  q:", "    request: /q"] + (afterQuestions ? ["    questions: $"] : [])
        let request = lines.contains { $0.hasPrefix("request:") } ? [] : ["request: POST /s"]
        return (first + ["  s:"] + (request + lines).map { "    " + $0 }).joined(separator: "\n") + "\n"
    }

    static func plan(_ text: String, set assignments: [String] = []) throws -> Plan {
        var overrides = PlanOverrides()
        for assignment in assignments { try overrides.set(assignment: assignment) }
        return try #require(expectPlan(text, overrides: overrides))
    }

    @Test func everyKeyOfThePlanSetToTwoValuesGivesTwoDigestsButThoseLeftOut() throws {
        let directory = try TemporaryDirectory()
        let table = try Self.topLevel(directory)
        let valueKeys = Set(PlanKeys.all.filter { $0.shape != .block }.map(\.path))
        #expect(Set(table.keys) == valueKeys, "two values for every key of the plan format")
        #expect(valueKeys.count == 90)
        // What says how or where a run goes, not what it does: a key added here is a decision.
        #expect(
            Plan.digestLeavesOut == [
                "engine.threads", "proxy", "report.formats", "report.dir", "report.include_answers", "report.interval",
                "report.lag_limit",
            ])
        for (key, (a, b)) in table.sorted(by: { $0.key < $1.key }) {
            let one = try Self.plan(Self.base + a.lines, set: a.set)
            let two = try Self.plan(Self.base + b.lines, set: b.set)
            if Plan.digestLeavesOut.contains(key) {
                #expect(one != two, "'\(key)': the two values are one plan")
                #expect(one.digest == two.digest, "'\(key)' is left out of the digest, but changed it")
            } else {
                #expect(one.digest != two.digest, "two values of '\(key)' gave one digest")
            }
        }
    }

    @Test func everyKeyOfAStepSetToTwoValuesGivesTwoDigests() throws {
        let stepKeys = Set(
            JourneyKeys.keys(Step("s"), at: 0).filter { $0.shape != .block }.map { String($0.path.dropFirst("journey.s.".count)) })
        #expect(Set(Self.stepKeys.keys) == stepKeys, "two values for every key of a step")
        #expect(stepKeys.count == JourneyKeys.Name.allCases.count + Self.retry.count)
        for (key, variant) in Self.stepKeys.sorted(by: { $0.key < $1.key }) {
            let one = try Self.plan(Self.journey(afterQuestions: variant.afterQuestions, variant.a))
            let two = try Self.plan(Self.journey(afterQuestions: variant.afterQuestions, variant.b))
            #expect(one.run.declaredJourney != two.run.declaredJourney || one.run.retry != two.run.retry, "'\(key)': one step")
            #expect(one.digest != two.digest, "two values of the step's '\(key)' gave one digest")
        }
    }

    @Test func everyStepKeyIsDigestedInItsOwnItemOrAnotherKeysOfTheStep() {
        let names = Set(JourneyKeys.all.map(\.name))
        #expect(names == Set(JourneyKeys.Name.allCases), "every step key is in the table")
        #expect(JourneyKeys.all.count == JourneyKeys.Name.allCases.count, "a step key is listed twice")
        let digested = Set(JourneyKeys.inDigestOrder.map(\.name))
        #expect(digested == names && JourneyKeys.inDigestOrder.count == names.count, "the digest writes every key once")
        for key in JourneyKeys.all {
            guard case .within(let other) = key.digest else { continue }
            let owner = JourneyKeys.all.first { $0.name == other }
            if case .within = owner?.digest {
                Issue.record("'\(key.name.rawValue)' is digested within '\(other.rawValue)', which is digested within another")
            }
            #expect(owner != nil)
        }
    }
}
