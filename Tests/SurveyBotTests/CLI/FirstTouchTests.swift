import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Small things a new user meets first: each line says a thing once, and says it right.
@Suite struct FirstTouchTests {
    @Test func theStartLineNamesTheTargetOnce() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("one.plan", lines("name: one", "target: builtin", "respondents: 1", "answers:", "  \"*\": yes"))
        let result = await runCommand(["run", plan, "--out", directory.path])
        let first = try #require(result.err.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("survey-bot \(SurveyEngine.version): running one against builtin server at http://127.0.0.1:"))
        #expect(first.hasSuffix(" — closed model, 1 respondent, concurrency 10"), "\(first)")
        #expect(!first.contains("target builtin"))
        // `validate`, which names no place of its own, still names the target.
        let validated = await runCommand(["validate", plan])
        #expect(validated.out == "\(plan): ok — closed model, 1 respondent, concurrency 10, target builtin\n")
    }

    @Test func aBuiltinBlockBesideAnotherTargetIsNoted() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "b.plan", lines("name: b", "target: builtin", "builtin:", "  fail_rate: 5%", "answers:", "  \"*\": yes"))
        let elsewhere = await runCommand(["validate", plan, "--target", "http://127.0.0.1:9"])
        #expect(elsewhere.status == .success)
        #expect(
            elsewhere.out.hasSuffix(
                "\n  note: 'builtin' ('builtin.fail_rate'…) is not used: the target is http://127.0.0.1:9, not the builtin server\n"),
            "\(elsewhere.out)")
        let builtin = await runCommand(["validate", plan])
        #expect(!builtin.out.contains("note:"))
    }

    @Test func validateSaysTheProtocolChosenAndWhenSharingChangesNothing() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "p.plan", lines("name: p", "target: http://127.0.0.1:9", "respondents: 1", "answers:", "  \"*\": yes"))
        let h2c = await runCommand(["validate", plan, "--http", "2", "--set", "connections=shared"])
        #expect(
            h2c.out
                == "\(plan): ok — closed model, 1 respondent, concurrency 10, target http://127.0.0.1:9, HTTP/2 (h2c), shared connections\n"
        )
        let h2 = await runCommand(["validate", plan, "--http", "2", "--target", "https://127.0.0.1:9"])
        #expect(h2.out == "\(plan): ok — closed model, 1 respondent, concurrency 10, target https://127.0.0.1:9, HTTP/2 only\n")
        // Plain http without `http: 2` is HTTP/1.1, which cannot share: said, not refused.
        let unshared = await runCommand(["validate", plan, "--set", "connections=shared"])
        #expect(unshared.status == .success)
        #expect(
            unshared.out.hasSuffix(
                "\n  note: 'connections: shared' changes nothing here: plain http speaks HTTP/1.1 unless 'http: 2', and HTTP/1.1 cannot "
                    + "carry two requests on one connection at once\n"), "\(unshared.out)")
        let bad = await runCommand(["validate", plan, "--http", "3"])
        #expect(bad.status == .validationFailure)
        #expect(bad.err.contains("--http 3: expected one of auto, 1.1, 2, found '3' (did you mean '2'?)"), "\(bad.err)")
    }

    @Test func aServerSaysEachStatusWithItsOwnReasonOrNone() {
        #expect(HTTPStatus.reason(401) == "Unauthorized")
        #expect(HTTPStatus.reason(409) == "Conflict")
        #expect(HTTPStatus.reason(299) == "")
    }
}

/// `report.include_answers`: the answers respondents gave, not only the plan's candidates —
/// a data row's values never.
@Suite struct AnswersGivenTests {
    @Test func theReportCountsEachAnswerGivenAsThePlanShowsIt() async throws {
        let directory = try TemporaryDirectory()
        let data = try directory.write("rows.csv", "member,answer.2\nm1,secret-one\nm2,\nm3,secret-three\n")
        let plan = try directory.write(
            "given.plan",
            lines(
                "name: given", "target: builtin", "respondents: 30", "concurrency: 3", "seed: 5", "data: \(data)", "builtin:",
                "  questions: 3", "answers:", "  1: [red, green]", "  \"*\": ${WORD}", "report:", "  include_answers: true"))
        let result = await runCommand(["run", plan, "--out", directory.path, "--quiet"], environment: ["WORD": "hidden-word"])
        #expect(result.status == .success, "\(result.err)")
        let text = try String(contentsOfFile: directory.path + "/given-latest.json", encoding: .utf8)
        let report = try RunReport.read(path: directory.path + "/given-latest.json")
        let given = try #require(report.answers.given)
        // Every answer drawn is counted once: the submitted and the unanswered.
        #expect(given.values.flatMap(\.values).reduce(0, +) == report.answers.submitted + report.answers.unanswered)
        #expect(Set(given["1"]?.keys ?? [:].keys) == ["red", "green"])
        #expect(given["3"] == ["${WORD}": 30])
        // Rows 1 and 3 answer question 2 (20 respondents of 30); row 2's empty cell leaves it to "*".
        #expect(given["2"] == ["(from the data)": 20, "${WORD}": 10])
        #expect(!text.contains("secret-") && !text.contains("hidden-word"))
    }
}
