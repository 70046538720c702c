import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A secret passed through the environment into every place a plan can take it — the name, the
/// target's path, both API paths and their query strings, a header, an answer — and into URL
/// user info, given to the real executable: no output of `run` or `validate` holds it, and
/// each place shows the variable by name instead.
@Suite struct SecretsEndToEndTests {
    private let secret = "sec\(UInt64.random(in: 1_000_000...9_999_999))ret"

    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SECRET"] = secret
        return environment
    }

    @Test func aSecretFromTheEnvironmentIsShownByItsNameInEveryOutput() async throws {
        let directory = try TemporaryDirectory()
        let (server, url) = try await startServer([])
        defer { server.stop() }
        let plan = try directory.write(
            "nightly.plan",
            """
            name: nightly-${SECRET}
            target: \(url)/base-${SECRET}
            respondents: 2
            concurrency: 2
            api:
              questions: GET /questions?token=${SECRET}&page=1
              submit: POST /question/${SECRET}/submit
              headers:
                Authorization: Bearer ${SECRET}
            answers:
              "*": ${SECRET}
            report:
              formats: [json, markdown, junit, text]
              include_answers: true
            """)
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path], environment: environment)
        // Nothing completed (the server does not serve the secret path), and the plan has no
        // thresholds: the implicit survey.completion_rate > 0 fails.
        #expect(await run.wait(seconds: 30) == 1, "\(run.standardError)")
        // The secret did reach the wire: the server was asked for a path it does not serve.
        let stats = try await fetchStats(url)
        #expect(stats.requests("questions") == 0 && stats.requests("other") == 2)

        #expect(!run.standardOutput.contains(secret), "\(run.standardOutput)")
        #expect(!run.standardError.contains(secret), "\(run.standardError)")
        #expect(run.standardError.contains("running nightly-${SECRET} against \(url)/base-${SECRET} — "), "\(run.standardError)")
        #expect(run.standardOutput.contains("nightly-${SECRET}: "), "\(run.standardOutput)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "nightly.plan" }
        #expect(names.count == 8, "\(names)")
        for name in names {
            #expect(!name.contains(secret))
            #expect(name.hasPrefix("nightly-SECRET-"), "\(name)")
            let text = try String(contentsOfFile: directory.path + "/" + name, encoding: .utf8)
            #expect(!text.contains(secret), "\(name)")
            #expect(text.contains("nightly-${SECRET}"), "\(name)")
        }
        let report = try RunReport.read(path: directory.path + "/nightly-SECRET-latest.json")
        #expect(report.name == "nightly-${SECRET}")
        #expect(report.target == "\(url)/base-${SECRET}")
        #expect(report.plan.target == "\(url)/base-${SECRET}")
        #expect(report.plan.api == ["questions": "GET /questions?token=***&page=***", "submit": "POST /question/${SECRET}/submit"])
        #expect(report.plan.headers == ["Authorization": "<redacted>"])
        #expect(report.plan.answers == ["*": ["${SECRET}"]])
        let markdown = try String(contentsOfFile: directory.path + "/nightly-SECRET-latest.md", encoding: .utf8)
        #expect(markdown.contains("\(url)/base-${SECRET}"))

        let validate = try ChildProcess(surveyBot: ["validate", plan], environment: environment)
        #expect(await validate.wait(seconds: 30) == 0, "\(validate.standardError)")
        #expect(!validate.standardOutput.contains(secret) && !validate.standardError.contains(secret))
        #expect(validate.standardOutput.contains("target \(url)/base-${SECRET}"), "\(validate.standardOutput)")
    }

    /// User info and query values in a URL are `***` wherever they come from; an invalid value
    /// from the environment is named by its variable in the error, never echoed.
    @Test func errorsNameTheVariableAndHideUserInfoAndQueryValues() async throws {
        let directory = try TemporaryDirectory()
        let userInfo = try directory.write(
            "userinfo.plan",
            """
            target: http://admin:${SECRET}@127.0.0.1:9
            concurrency: ${SECRET}
            """)
        let query = try directory.write("query.plan", "target: http://127.0.0.1:9/v1?token=${SECRET}\n")
        let validate = try ChildProcess(surveyBot: ["validate", userInfo, query], environment: environment)
        #expect(await validate.wait(seconds: 30) == 2)
        let errors = validate.standardError
        #expect(!errors.contains(secret) && !validate.standardOutput.contains(secret), "\(errors)")
        #expect(!errors.contains("admin"), "\(errors)")
        #expect(errors.contains("'http://***@127.0.0.1:9'"), "\(errors)")
        #expect(errors.contains("for 'concurrency', found '${SECRET}'"), "\(errors)")
        #expect(errors.contains("'http://127.0.0.1:9/v1?token=***'"), "\(errors)")

        // Typed on the command line, user info is a secret too.
        let plan = try directory.write("plain.plan", "respondents: 1\n")
        let run = try ChildProcess(
            surveyBot: ["run", plan, "--target", "http://admin:\(secret)@127.0.0.1:9", "--out", directory.path], environment: environment)
        #expect(await run.wait(seconds: 30) == 2)
        #expect(!run.standardError.contains(secret) && !run.standardOutput.contains(secret), "\(run.standardError)")
        #expect(run.standardError.contains("--target http://***@127.0.0.1:9"), "\(run.standardError)")
    }

    @Test func aReportDirectoryFromTheEnvironmentIsShownByName() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "dir.plan",
            """
            name: dir
            respondents: 1
            answers:
              "*": yes
            report:
              dir: ${OUT}/${SECRET}
            """)
        var environment = environment
        environment["OUT"] = directory.path
        let run = try ChildProcess(surveyBot: ["run", plan], environment: environment)
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        #expect(!run.standardOutput.contains(secret) && !run.standardError.contains(secret), "\(run.standardOutput)")
        #expect(run.standardOutput.contains("report: ${OUT}/${SECRET}/dir-"), "\(run.standardOutput)")
        #expect(FileManager.default.fileExists(atPath: "\(directory.path)/\(secret)/dir-latest.json"))

        // A directory that cannot be made: the error names it as the plan does.
        environment["OUT"] = try directory.write("blocker", "a file, not a directory")
        let refused = try ChildProcess(surveyBot: ["run", plan], environment: environment)
        #expect(await refused.wait(seconds: 30) == 2)
        #expect(!refused.standardError.contains(secret), "\(refused.standardError)")
        #expect(!refused.standardError.contains(directory.path), "\(refused.standardError)")
        #expect(
            refused.standardError.contains("cannot create the report directory ${OUT}/${SECRET}: ${OUT} is not a directory"),
            "\(refused.standardError)")
    }
}
