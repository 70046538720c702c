import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine

@Suite struct NothingLostTests {
    @Test func sigtermWritesAPartialReportLikeSigint() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "term.plan",
            """
            name: term
            target: builtin
            respondents: 100000
            concurrency: 4
            think: 200ms
            answers:
              "*": yes
            report:
              formats: [json, junit]
            """)
        let run = try RunningTool(["run", plan, "--out", directory.path, "--quiet"])
        try await Task.sleep(for: .milliseconds(600))
        run.signal(SIGTERM)
        #expect(await run.wait(seconds: 20) == 130)
        let report = try RunReport.read(path: directory.path + "/term-latest.json")
        #expect(report.interrupted)
        #expect(report.respondents.abandonedReasons["interrupted"] == 4)
        let junit = try String(contentsOfFile: directory.path + "/term-latest.xml", encoding: .utf8)
        #expect(junit.contains("the run was interrupted before its end"))
    }

    /// Kills runs with SIGKILL at moments spread over their life, report writing included:
    /// the latest report is always absent or whole, never cut.
    @Test func killingARunNeverLeavesATruncatedReport() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "kill.plan",
            """
            name: kill
            target: builtin
            respondents: 300
            concurrency: 20
            answers:
              "*": yes
            report:
              formats: [json, markdown]
            """)
        var whole = 0
        for round in 0..<12 {
            let run = try RunningTool(["run", plan, "--out", directory.path, "--quiet"])
            try await Task.sleep(for: .milliseconds(40 * round))
            run.signal(SIGKILL)
            _ = await run.wait(seconds: 20)
            let latest = directory.path + "/kill-latest.json"
            if FileManager.default.fileExists(atPath: latest) {
                _ = try RunReport.read(path: latest)
                whole += 1
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
                _ = try RunReport.read(path: directory.path + "/" + name)
            }
        }
        // Late kills come after the first report was written: it must have survived them.
        #expect(whole > 0)
    }

    @Test func aTokenInThePlanNeverAppearsInAnyOutput() async throws {
        let directory = try TemporaryDirectory()
        let token = "tok-\(UInt64.random(in: 1_000_000...9_999_999))-secret"
        let plan = try directory.write(
            "secret.plan",
            """
            name: secret
            target: builtin
            respondents: 3
            api:
              headers:
                Authorization: Bearer ${SURVEY_TOKEN}
            answers:
              "*": ${SURVEY_ANSWER}
            report:
              formats: [json, markdown, junit]
            """)
        var environment = ProcessInfo.processInfo.environment
        environment["SURVEY_TOKEN"] = token
        environment["SURVEY_ANSWER"] = token + "-answer"
        let run = try RunningTool(["run", plan, "--out", directory.path], environment: environment)
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        #expect(!run.standardOutput.contains(token))
        #expect(!run.standardError.contains(token))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "secret.plan" }
        #expect(names.count == 6)
        for name in names {
            let text = try String(contentsOfFile: directory.path + "/" + name, encoding: .utf8)
            #expect(!text.contains(token), "\(name)")
        }
        let report = try RunReport.read(path: directory.path + "/secret-latest.json")
        #expect(report.plan.headers == ["Authorization": "<redacted>"])
        #expect(report.answers.submitted == 30)
    }
}
