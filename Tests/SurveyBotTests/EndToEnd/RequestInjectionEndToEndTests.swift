import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// The real executable against `survey-bot serve` on loopback: a plan that tries to smuggle a
/// second request — by its target, an API path or a header, written in the plan, through
/// `${ENV}`, `--set` or `--target` — is refused with exit 2, and the server counts not one
/// request.
@Suite struct RequestInjectionEndToEndTests {
    @Test func aSmugglingPlanSendsNothing() async throws {
        let (server, url) = try await startServer([])
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let smuggled = "\r\nGET /questions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let base = "respondents: 2\nconcurrency: 1\ntimeout: 1s\n"
        let inPlan = try directory.write("in-plan.plan", "target: \(quotedInPlan(url + "/v1" + smuggled))\n" + base)
        let fromEnvironment = try directory.write("from-env.plan", "target: ${SURVEY_TARGET}\n" + base)
        let plain = try directory.write("plain.plan", "target: \(url)\n" + base)
        let twoHosts = try directory.write("two-hosts.plan", "target: \(url)\n" + base + "api:\n  headers:\n    Host: evil.example\n")
        let runs: [(arguments: [String], environment: [String: String], error: String)] = [
            ([inPlan], [:], "in-plan.plan:1:9: error: a carriage return (\\r)"),
            ([fromEnvironment], ["SURVEY_TARGET": url + "/v1" + smuggled], "from-env.plan:1:9: error: a carriage return (\\r)"),
            ([plain, "--set", "api.questions=GET /questions" + smuggled], [:], "error: --set api.questions=GET /questions\\r\\n"),
            ([plain, "--target", url + "/v1" + smuggled], [:], "error: --target \(url)/v1\\r\\n"),
            ([twoHosts], [:], "two-hosts.plan:7:5: error: 'Host' is set by survey-bot"),
        ]
        for (arguments, environment, error) in runs {
            let run = try ChildProcess(
                surveyBot: ["run"] + arguments + ["--out", directory.path, "--quiet"],
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
            let status = await run.wait(seconds: 30)
            #expect(status == 2, "\(arguments): exit \(status): \(run.standardError)")
            #expect(run.standardError.contains(error), "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains("nothing was sent"), "\(arguments): \(run.standardError)")
            #expect(!run.standardError.utf8.contains(0x0D), "control bytes are escaped: \(run.standardError)")
        }
        let stats = try await fetchStats(url)
        #expect(stats.requests("questions") == 0 && stats.requests("submit") == 0 && stats.requests("other") == 0, "\(stats)")
        #expect(stats.rejected == 0, "\(stats)")
        #expect(stats.connectionsAccepted == 1, "only the test's own GET /__stats: \(stats)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { $0.hasSuffix(".plan") })
    }
}
