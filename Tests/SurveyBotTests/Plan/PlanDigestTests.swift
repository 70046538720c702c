import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport

/// The plan every digest variant starts from: valid with any one key changed.
private let basePlan = lines(
    "name: digest", "target: builtin", "respondents: 5", "duration: 1m", "answers:", "  \"*\": fine", "retry:", "  budget: 20%")

/// For every key the digest covers, a change of that key alone: `--set` assignments, or plan
/// lines appended (for what `--set` cannot write), with files made in `directory`.
private func variants(directory: TemporaryDirectory) throws -> [String: (set: [String], lines: String)] {
    let fileA = try directory.write("a.pem", "a")
    let fileB = try directory.write("b.pem", "b")
    let questions = try directory.write("questions.json", #"[{"id": 1, "question": "Why?"}]"#)
    let data = try directory.write("data.csv", "a\n1\n")
    var table: [String: (set: [String], lines: String)] = [
        "name": (["name=other"], ""), "target": (["target=http://127.0.0.1:9"], ""),
        "respondents": (["respondents=6"], ""), "concurrency": (["concurrency=3"], ""), "duration": (["duration=2m"], ""),
        "grace": (["duration=2m", "grace=1s"], ""),
        "rate": (["rate=5/s"], ""), "ramp": (["rate=5/s"], "ramp:\n  - 10s: 5/s\n"), "timeout": (["timeout=1s"], ""),
        "connect_timeout": (["connect_timeout=1s"], ""), "max_body": (["max_body=2KiB"], ""), "think": (["think=1ms..2ms"], ""),
        "order": (["order=reverse"], ""), "seed": (["seed=7"], ""), "api.questions": (["api.questions=GET /q"], ""),
        "api.submit": (["api.submit=PUT /question/submit"], ""), "api.headers": (["api.headers.X-Team=a"], ""),
        "answers": (["answers.1=red"], ""), "retry.budget": (["retry.budget=30%"], ""), "retry.budget_min": (["retry.budget_min=4"], ""),
        "tls.verify": (["tls.verify=false"], ""), "tls.ca_file": (["tls.ca_file=\(fileA)"], ""),
        "tls.client_cert": (["tls.client_cert=\(fileA)", "tls.client_key=\(fileB)"], ""),
        "tls.client_key": (["tls.client_key=\(fileA)", "tls.client_cert=\(fileB)"], ""),
        "tls.server_name": (["tls.server_name=example.test"], ""), "tls.min_version": (["tls.min_version=1.3"], ""),
        "thresholds": (["thresholds.submit.p95=< 300ms"], ""), "builtin.questions": (["builtin.questions=3"], ""),
        "builtin.questions_file": (["builtin.questions_file=\(questions)"], ""), "builtin.fail_rate": (["builtin.fail_rate=5%"], ""),
        "builtin.error_rate": (["builtin.error_rate=5%"], ""), "builtin.cold_start": (["builtin.cold_start=2"], ""),
        "builtin.latency": (["builtin.latency=1ms"], ""), "builtin.reset_rate": (["builtin.reset_rate=5%"], ""),
        "builtin.malformed_rate": (["builtin.malformed_rate=5%"], ""), "builtin.slow_rate": (["builtin.slow_rate=5%"], ""),
        "builtin.trickle": (["builtin.trickle=1s"], ""), "builtin.hang_rate": (["builtin.hang_rate=5%"], ""),
        "builtin.tls": (["builtin.tls=true"], ""),
        "data": (["data=\(data)"], ""), "data_order": (["data=\(data)", "data_order=unique"], ""),
        "api.questions_list": (["api.questions_list=data.items"], ""), "api.question_id": (["api.question_id=qid"], ""),
        "api.question_text": (["api.question_text=text"], ""), "api.submit_body": (["api.submit_body={}"], ""),
        "api.login": (["api.login=/session"], ""), "api.login_body": (["api.login=/session", "api.login_body={}"], ""),
        "api.capture": (["api.login=/session"], "api:\n  capture:\n    token: $.token\n"),
        "pace": (["pace=2s"], ""), "cookies": (["cookies=false"], ""),
        "builtin.login": (["builtin.login=true"], ""),
        "journey": ([], "journey:\n  fetch:\n    request: /questions\n"),
        "builtin.api": (["builtin.api=pages"], "journey:\n  fetch:\n    request: /questions\n"),
        "builtin.survey": (["builtin.api=pages", "builtin.survey=typed"], "journey:\n  fetch:\n    request: /questions\n"),
        "http": (["http=2"], ""),
        "connections": (["connections=shared"], ""),
        "builtin.http2": (["builtin.http2=true"], ""), "builtin.goaway_rate": (["builtin.goaway_rate=5%"], ""),
        "builtin.window": (["builtin.window=16"], ""), "builtin.window_delay": (["builtin.window_delay=10ms"], ""),
        "skip_optional": (["skip_optional=10%"], ""),
        "types": (
            [], "journey:\n  fetch:\n    request: /questions\n    questions: $\n    question_type: kind\ntypes:\n  MC:\n    answer: red\n"
        ),
    ]
    for endpoint in ["login", "questions", "submit"] {
        let base = "retry.\(endpoint)"
        table["\(base).attempts"] = (["\(base).attempts=9"], "")
        table["\(base).backoff"] = (["\(base).backoff=linear"], "")
        table["\(base).initial"] = (["\(base).initial=10ms"], "")
        table["\(base).max"] = (["\(base).max=9s"], "")
        table["\(base).multiplier"] = (["\(base).multiplier=3"], "")
        table["\(base).jitter"] = (["\(base).jitter=none"], "")
        table["\(base).on"] = (["\(base).on=[timeout]"], "")
    }
    return table
}

private func plan(_ text: String = basePlan, set assignments: [String] = [], environment: [String: String] = [:]) throws -> Plan {
    var overrides = PlanOverrides()
    for assignment in assignments { try overrides.set(assignment: assignment) }
    return try #require(expectPlan(text, environment: environment, overrides: overrides))
}

@Suite struct PlanDigestTests {
    /// The keys of the plan format that hold a value, not a block.
    private static let valueKeys = Set(PlanKeys.all.filter { $0.shape != .block }.map(\.path))

    @Test func everyKeyIsInTheCanonicalFormOrNamedAsLeftOut() throws {
        let keys = Set(try plan().canonicalEntries.map(\.key))
        #expect(keys.isDisjoint(with: Plan.digestLeavesOut))
        #expect(
            keys.union(Plan.digestLeavesOut).union(Plan.digestedWhenGiven) == Self.valueKeys,
            "a new plan key must be digested or left out on purpose")
        #expect(
            Plan.digestedWhenGiven == [
                "journey", "builtin.api", "http", "connections", "builtin.http2", "builtin.goaway_rate", "builtin.window",
                "builtin.window_delay", "types", "skip_optional", "builtin.survey",
            ])
        #expect(
            Plan.digestLeavesOut == [
                "engine.threads", "proxy", "report.formats", "report.dir", "report.include_answers", "report.interval",
                "report.lag_limit",
            ])
    }

    @Test func changingAnyKeyChangesTheDigest() throws {
        let directory = try TemporaryDirectory()
        let table = try variants(directory: directory)
        #expect(Set(table.keys) == Self.valueKeys.subtracting(Plan.digestLeavesOut), "one variant for every digested key")
        let base = try plan()
        for (key, change) in table.sorted(by: { $0.key < $1.key }) {
            let changed = try plan(basePlan + change.lines, set: change.set)
            #expect(changed.digest != base.digest, "changing '\(key)' left the digest as it was")
            let line = changed.canonicalEntries.first { $0.key == key }?.value
            #expect(line != base.canonicalEntries.first { $0.key == key }?.value, "'\(key)' itself did not change")
        }
    }

    @Test func theDigestIsTheSHA256OfTheCanonicalText() throws {
        let plan = try plan()
        #expect(plan.digest == "sha256:" + SHA256.hex(of: Array(plan.canonicalText.utf8)))
        #expect(plan.canonicalText.hasPrefix("answers: "))
        #expect(plan.canonicalText.contains("\nconcurrency: 10\n"))
    }

    @Test func theShardThreadsAndReportSettingsLeaveTheDigestAsItWas() throws {
        let base = try plan()
        var shard = base
        shard.run.shard = Shard(index: 2, count: 3)
        #expect(shard.digest == base.digest)
        let elsewhere = try plan(set: [
            "engine.threads=3", "report.dir=/tmp/elsewhere", "report.formats=[junit]", "report.include_answers=true",
        ])
        #expect(elsewhere.digest == base.digest)
    }

    @Test func valuesFromTheEnvironmentAreDigestedByTheirNames() throws {
        let text = lines(
            "name: nightly-${BRANCH}", "target: http://127.0.0.1:9/base/${TENANT}", "respondents: ${N}", "api:",
            "  questions: GET /q/${TENANT}?token=${TOKEN}", "  headers:", "    Authorization: Bearer ${TOKEN}", "answers:",
            "  \"*\": ${ANSWER}", "tls:", "  server_name: ${HOST}")
        func environment(_ secret: String, n: String = "4") -> [String: String] {
            ["BRANCH": secret + "b", "TENANT": secret + "t", "TOKEN": secret + "k", "ANSWER": secret + "a", "HOST": secret + "h", "N": n]
        }
        let one = try plan(text, environment: environment("first-secret"))
        let two = try plan(text, environment: environment("second-secret"))
        #expect(one.digest == two.digest)
        #expect(!one.canonicalText.contains("first-secret"))
        for shown in ["nightly-${BRANCH}", "/base/${TENANT}", "/q/${TENANT}?token=***", "${ANSWER}", "${HOST}", "Authorization"] {
            #expect(one.canonicalText.contains(shown), "\(shown)")
        }
        // A number from the environment is digested as read: another value is another plan.
        let more = try plan(text, environment: environment("first-secret", n: "5"))
        #expect(more.digest != one.digest)
    }

    /// A secret in a check, a regex capture or a form value is digested by its variable's
    /// name: two secrets, one digest (a short secret could be found by trying digests), and
    /// shards run with secrets of their own share it.
    @Test(arguments: ["4711", "ab", "s3cr3t value/&="])
    func aSecretInACheckACaptureOrAFormIsDigestedByItsName(_ secret: String) throws {
        let journey = lines(
            "target: http://127.0.0.1:9", "journey:", "  open:", "    request: POST /session", "    form:",
            "      user: u-${SECRET}", "      pin: ${SECRET}", "    capture:", "      token: regex tok-${SECRET}-(\\w+)",
            "    expect:", "      - status == 200", "      - $.pin == \"${SECRET}\"", "      - body not contains ${SECRET}",
            "  fetch:", "    request: GET /questions", "    questions: $", "answers:", "  \"*\": x")
        let api = lines(
            "target: http://127.0.0.1:9", "api:", "  login: POST /session", "  capture:", "    token: regex key=${SECRET}([a-z]+)",
            "answers:", "  \"*\": x")
        for text in [journey, api] {
            let one = try plan(text, environment: ["SECRET": secret])
            let two = try plan(text, environment: ["SECRET": "other-\(secret.count)"])
            #expect(one.digest == two.digest, "\(one.canonicalText)")
            #expect(!one.canonicalText.contains(secret), "\(one.canonicalText)")
            #expect(one.canonicalText.contains("${SECRET}"))
            // What the engine masks in what a server says: the secret, a number too.
            #expect(one.secrets.contains(secret))
        }
        // Another check is another plan.
        let other = try plan(journey.replacingOccurrences(of: "status == 200", with: "status == 201"), environment: ["SECRET": secret])
        #expect(other.digest != (try plan(journey, environment: ["SECRET": secret])).digest)
    }
}
