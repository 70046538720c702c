import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// Values from the environment go on the wire as they are and are shown as `${NAME}` wherever
/// they are printed or written; URL user info and query values are shown as `***`.
@Suite struct EnvironmentDisplayTests {
    private let secret = "s3cr3t-\(UInt64.random(in: 1_000_000...9_999_999))"

    @Test func aScalarShowsEachPartFromTheEnvironmentByItsName() throws {
        let (root, errors) = PlanParser.parse(
            lines("a: x-${A}-y", "b: \"${A}${MISSING:-fallback}\"", "c: [${A}, plain]", "d: 'literal ${A}'"), path: "p.plan",
            environment: ["A": secret])
        #expect(errors.isEmpty)
        guard case .mapping(let entries, _) = root, entries.count == 4, case .scalar(let a) = entries[0].value,
            case .scalar(let b) = entries[1].value, case .list(let c, _) = entries[2].value, case .scalar(let d) = entries[3].value,
            case .scalar(let c0) = c[0], case .scalar(let c1) = c[1]
        else {
            Issue.record("unexpected tree \(root)")
            return
        }
        #expect(a.text == "x-\(secret)-y" && a.display == "x-${A}-y")
        #expect(b.text == "\(secret)fallback")
        #expect(b.display == "${A}fallback", "a default is written in the plan: it is shown")
        #expect(c0.display == "${A}" && c1.display == "plain")
        #expect(d.display == "literal ${A}" && !d.isFromEnvironment)
    }

    @Test func aPartOfAValueShowsEveryVariableItTouches() {
        var text = PlanText()
        text.append(literal: "/v1/")
        text.append(variable: "TENANT", value: "acme")
        text.append(literal: "/x")
        #expect(text.value == "/v1/acme/x")
        #expect(text.display == "/v1/${TENANT}/x")
        #expect(text.slice(0..<3).display == "/v1")
        #expect(text.slice(5..<6).display == "${TENANT}", "a piece cut in two is still named whole")
        #expect(text.slice(2..<9).display == "1/${TENANT}/")
        #expect(text.slice(2..<9).value == "1/acme/")
        #expect(text.split(separator: "/").map(\.display) == ["v1", "${TENANT}", "x"])
        var empty = PlanText("a")
        empty.append(variable: "EMPTY", value: "")
        #expect(empty.display == "a${EMPTY}" && empty.value == "a")
        #expect(PlanText("  x ").trimmingSpaces().value == "x")
    }

    @Test func urlsShowUserInfoAndQueryValuesAsStars() {
        #expect(URLDisplay.redacting("http://admin:pw@host:8080/a") == "http://***@host:8080/a")
        #expect(URLDisplay.redacting("'https://token@[::1]/a?b=c'") == "'https://***@[::1]/a?b=***'")
        #expect(URLDisplay.redacting("/questions?token=abc&page=2&bare&empty=#top") == "/questions?token=***&page=***&***&empty=#top")
        #expect(URLDisplay.redacting("error: --target http://u:p@h:1: bad") == "error: --target http://***@h:1: bad")
        #expect(URLDisplay.redacting("--set api.submit=/s?k=v") == "--set api.submit=/s?k=***")
        #expect(URLDisplay.redacting("GET /questions") == "GET /questions")
        #expect(URLDisplay.redacting("no url here: a=b? c/d?e=f") == "no url here: a=b? c/d?e=f")
    }

    @Test func theTargetKeepsSchemeHostAndPortAndNamesTheRest() throws {
        let plan = try #require(
            expectPlan(
                lines("target: http://${HOST}:${PORT}/v1/${TENANT}/", "respondents: 1"),
                environment: ["HOST": "127.0.0.1", "PORT": "8080", "TENANT": secret]))
        #expect(plan.target == .url(HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080, basePath: "/v1/\(secret)")))
        #expect(plan.shownTarget == "http://127.0.0.1:8080/v1/${TENANT}")
        #expect(plan.summary.contains("target http://127.0.0.1:8080/v1/${TENANT}"))
        let whole = try #require(expectPlan("target: ${URL}\n", environment: ["URL": "http://127.0.0.1:8080/\(secret)"]))
        #expect(whole.shownTarget == "http://127.0.0.1:8080${URL}")
        let origin = try #require(expectPlan("target: ${URL}\n", environment: ["URL": "https://127.0.0.1"]))
        #expect(origin.shownTarget == "https://127.0.0.1:443")
        let plain = try #require(expectPlan("target: http://127.0.0.1:8080/v1/\n"))
        #expect(plain.shownTarget == "http://127.0.0.1:8080/v1")
    }

    @Test func apiCallsShowVariablesByNameAndQueryValuesAsStars() throws {
        let plan = try #require(
            expectPlan(
                lines("api:", "  questions: /q/${T}?key=${T}&mode=fast", "  submit: ${METHOD}   /s?static=plain"),
                environment: ["T": secret, "METHOD": "PUT"]))
        #expect(plan.run.api.questions == SurveyAPI.Call(method: "GET", path: "/q/\(secret)?key=\(secret)&mode=fast"))
        #expect(plan.run.api.submit == SurveyAPI.Call(method: "PUT", path: "/s?static=plain"))
        #expect(plan.shownCall(.questions) == "GET /q/${T}?key=***&mode=***")
        #expect(plan.shownCall(.submit) == "${METHOD} /s?static=***")
        let whole = try #require(expectPlan(lines("api:", "  submit: ${CALL}"), environment: ["CALL": "POST /\(secret)"]))
        #expect(whole.shownCall(.submit) == "${CALL}")
        let literal = try #require(expectPlan(lines("api:", "  submit: POST /s?token=written-in-the-plan")))
        #expect(literal.shownCall(.submit) == "POST /s?token=***")
    }

    @Test func theReportShowsVariablesByNameInEveryFormat() throws {
        let text = lines(
            "name: nightly-${SECRET}", "target: http://127.0.0.1:8080/${SECRET}", "api:", "  submit: POST /s/${SECRET}?token=${SECRET}",
            "  headers:", "    Authorization: Bearer ${SECRET}", "answers:", "  1: [${SECRET}, plain]", "  \"*\": fixed", "report:",
            "  include_answers: true")
        let plan = try #require(expectPlan(text, environment: ["SECRET": secret]))
        #expect(plan.name == "nightly-${SECRET}")
        let report = ReportFixtures.report(plan: plan)
        #expect(report.name == "nightly-${SECRET}")
        #expect(report.target == "http://127.0.0.1:8080/${SECRET}")
        #expect(report.plan.target == "http://127.0.0.1:8080/${SECRET}")
        #expect(report.plan.api["submit"] == "POST /s/${SECRET}?token=***")
        #expect(report.plan.answers == ["1": ["${SECRET}", "plain"], "*": ["fixed"]])
        #expect(report.plan.headers == ["Authorization": "<redacted>"])
        for rendered in [try report.jsonText(), MarkdownReport.render(report), TextReport.render(report), JUnitReport.render(report)] {
            #expect(!rendered.contains(secret))
            #expect(rendered.contains("nightly-${SECRET}"))
        }
        #expect(ReportOutput.safeFileName(report.name) == "nightly-SECRET")
    }

    @Test func theBuiltinQuestionsFileIsShownByItsVariable() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write(secret, "[{\"id\": 1, \"question\": \"q\"}]")
        let plan = try #require(
            expectPlan(
                lines("builtin:", "  questions_file: ${DIR}/${FILE}", "answers:", "  \"*\": yes"),
                environment: ["DIR": directory.path, "FILE": secret]))
        #expect(ReportFixtures.report(plan: plan).plan.builtin == "questions from ${DIR}/${FILE}")
    }

    @Test func anInvalidValueFromTheEnvironmentIsNamedNotEchoed() {
        let cases: [(text: String, shown: String)] = [
            ("concurrency: ${V}", "expected an integer for 'concurrency', found '${V}'"),
            ("timeout: ${V}s", "for 'timeout', found '${V}s'"),
            ("target: ${V}", "found '${V}'"),
            ("order: ${V}", "'${V}'"),
            ("retry:\n  submit:\n    on: [${V}]", "unknown retry condition '${V}'"),
            ("thresholds:\n  submit.p95: \"< ${V}\"", "'${V}'"),
            ("thresholds:\n  submit.p95: \"${V}\"", "found '${V}'"),
        ]
        for (text, shown) in cases {
            let diagnostics = expectErrors(text + "\n", environment: ["V": secret])
            let all = diagnostics.map(\.description).joined(separator: "\n")
            #expect(!all.contains(secret), "\(text): \(all)")
            #expect(all.contains(shown), "\(text): \(all)")
        }
        // A value of the right kind but out of range: the reason says what is wrong and names
        // the variable in place of the value.
        let range = expectErrors("respondents: ${N}\n", environment: ["N": "-\(secret.filter(\.isNumber))"])
        let all = range.map(\.description).joined(separator: "\n")
        #expect(!all.contains(secret.filter(\.isNumber)), "\(all)")
        #expect(all.contains("respondents must be at least 1, found ${N}"), "\(all)")
    }

    @Test func userInfoAndQueryValuesNeverReachADiagnostic() {
        let literal = expectErrors("target: http://admin:\(secret)@127.0.0.1:9\n")
        let fromEnvironment = expectErrors("target: http://admin:${PASS}@127.0.0.1:9\n", environment: ["PASS": secret])
        for diagnostics in [literal, fromEnvironment] {
            let all = diagnostics.map(\.description).joined(separator: "\n")
            #expect(!all.contains(secret) && !all.contains("admin"), "\(all)")
            #expect(all.contains("http://***@127.0.0.1:9"), "\(all)")
        }
        var overrides = PlanOverrides()
        overrides.set("target", to: "http://127.0.0.1:9/?token=\(secret)", option: "--target")
        let option = expectErrors("respondents: 1\n", overrides: overrides).map(\.description).joined(separator: "\n")
        #expect(!option.contains(secret), "\(option)")
        #expect(option.contains("--target http://127.0.0.1:9/?token=***"), "\(option)")
    }

    @Test func aFilePathFromTheEnvironmentIsNamedInTLSErrors() {
        let diagnostics = expectErrors(
            lines("target: https://127.0.0.1:9", "tls:", "  ca_file: /nonexistent/${DIR}/ca.pem"), environment: ["DIR": secret])
        let all = diagnostics.map(\.description).joined(separator: "\n")
        #expect(!all.contains(secret), "\(all)")
        #expect(all.contains("/nonexistent/${DIR}/ca.pem"), "\(all)")
    }

    @Test func aKeyCannotTakeItsNameFromTheEnvironment() {
        expectSingleError(
            lines("api:", "  headers:", "    \"${NAME}\": value"), line: 3, column: 5, contains: "a key cannot come from the environment",
            environment: ["NAME": secret])
    }

    /// What a run masks in a server's reason: every value from the environment, whole and in
    /// part, a header's whatever it looks like, but not a number elsewhere, which the report
    /// shows anyway.
    @Test func theRunsSecretsAreItsValuesFromTheEnvironment() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "target: http://127.0.0.1:8080/${TENANT}", "respondents: ${N}", "api:", "  headers:",
                    "    Authorization: Bearer ${TOKEN}", "    X-Pin: ${PIN}", "journey:", "  open:", "    request: GET /open",
                    "    headers:", "      X-Step: ${STEP}", "answers:", "  \"*\": ${ANSWER}"),
                environment: ["TENANT": secret, "N": "40", "TOKEN": "tok-1", "PIN": "1234", "STEP": "step-2", "ANSWER": "5"]))
        let secrets = Set(plan.secrets)
        #expect(secrets.isSuperset(of: [secret, "Bearer tok-1", "tok-1", "1234", "step-2"]), "\(secrets)")
        #expect(!secrets.contains("40") && !secrets.contains("5"), "\(secrets)")
    }
}
