import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A proxy's credentials, given on the command line, in the plan or in the environment, never
/// appear in anything `run` or `validate` prints or writes: the console, every report format,
/// the `--raw` log, errors. Whether the attempts get through the proxy is the wire's business:
/// the proxy here is a loopback port nobody listens on.
@Suite struct ProxySecretsEndToEndTests {
    private let user = "al\(UInt64.random(in: 1_000_000...9_999_999))ice"
    private let password = "hun\(UInt64.random(in: 1_000_000...9_999_999))ter"
    /// The discard port on loopback, which nothing on a test machine serves.
    private let deadProxy = "127.0.0.1:9"

    private func expectClean(_ text: String, _ what: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(!text.contains(password), "\(what) holds the password:\n\(text)", sourceLocation: sourceLocation)
        #expect(!text.contains(user), "\(what) holds the user:\n\(text)", sourceLocation: sourceLocation)
    }

    @Test func aCredentialedProxyIsShownRedactedInEveryOutputAndFile() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "proxied.plan",
            """
            name: proxied
            target: builtin
            respondents: 2
            concurrency: 2
            timeout: 2s
            report:
              formats: [json, markdown, junit, text, csv, html, prometheus]
            """)
        let raw = directory.path + "/attempts.jsonl"
        let run = try ChildProcess(
            surveyBot: ["run", plan, "--out", directory.path, "--raw", raw, "--proxy", "http://\(user):\(password)@\(deadProxy)"],
            environment: ProcessInfo.processInfo.environment)
        // Through the proxy every attempt fails (1); a wire without proxies goes straight to the
        // builtin server (0). Either way the run was not refused.
        let status = await run.wait(seconds: 60)
        #expect(status == 0 || status == 1, "\(run.standardError)")
        expectClean(run.standardOutput, "stdout")
        expectClean(run.standardError, "stderr")
        #expect(run.standardError.contains("proxy http://***@\(deadProxy) (from --proxy)"), "\(run.standardError)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0 != "proxied.plan" }
        #expect(names.contains("attempts.jsonl") && names.contains("proxied-latest.html") && names.contains("proxied-latest.prom"))
        for name in names {
            expectClean(try String(contentsOfFile: directory.path + "/" + name, encoding: .utf8), name)
        }
        let report = try RunReport.read(path: directory.path + "/proxied-latest.json")
        #expect(report.plan.proxy == "http://***@\(deadProxy) (from --proxy)")
    }

    @Test func aProxyInThePlanOrTheEnvironmentIsRedactedInErrorsToo() async throws {
        let directory = try TemporaryDirectory()
        // Without a scheme, and with a port that is none: the error quotes the line.
        let bad = try directory.write("bad.plan", "target: http://127.0.0.1:9\nproxy: \(user):\(password)@127.0.0.1:0\n")
        let validate = try ChildProcess(surveyBot: ["validate", bad], environment: [:])
        #expect(await validate.wait(seconds: 30) == 2)
        expectClean(validate.standardError + validate.standardOutput, "validate of a bad proxy")
        #expect(validate.standardError.contains("proxy: ***@127.0.0.1:0"), "\(validate.standardError)")

        let good = try directory.write("good.plan", "target: https://127.0.0.1:9\n")
        var environment = ProcessInfo.processInfo.environment
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"] {
            environment[name] = nil
        }
        environment["HTTPS_PROXY"] = "\(user):\(password)@\(deadProxy)"
        let shown = try ChildProcess(surveyBot: ["validate", good], environment: environment)
        #expect(await shown.wait(seconds: 30) == 0, "\(shown.standardError)")
        expectClean(shown.standardOutput + shown.standardError, "validate with HTTPS_PROXY")
        #expect(shown.standardOutput.contains("proxy http://***@\(deadProxy) (from HTTPS_PROXY)"), "\(shown.standardOutput)")

        environment["HTTPS_PROXY"] = "ftp://\(user):\(password)@\(deadProxy)"
        let refused = try ChildProcess(surveyBot: ["run", good, "--out", directory.path], environment: environment)
        #expect(await refused.wait(seconds: 30) == 2)
        expectClean(refused.standardOutput + refused.standardError, "run with a bad HTTPS_PROXY")
        #expect(refused.standardError.contains("environment variable HTTPS_PROXY"), "\(refused.standardError)")
    }
}
