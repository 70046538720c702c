import Foundation
import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// `GET http://127.0.0.1:port/path`: the status and the body. The timeout is far above any
/// loopback answer, so that a machine busy with other work cannot fail a scrape for it.
func scrape(port: Int, path: String = "/metrics") async throws -> (status: Int, body: String) {
    let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: port)
    let group = EventLoopGroup(threads: 1)
    let client = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(60)))
    let outcome = await client.send(HTTPRequest(try HTTPRequest.Template(method: "GET", path: path, target: target), collectBody: true))
    await client.shutdown()
    group.shutdown()
    let response = try outcome.received.get()
    return (response.status, String(decoding: response.body, as: UTF8.self))
}

/// `--raw` and `--metrics-listen` on real runs against the builtin server. Serialized: a session
/// installs the process's signal handling while it runs, and two at once would take it from
/// each other.
@Suite(.serialized) struct ExportsTests {
    private func session(_ text: String, directory: TemporaryDirectory, options: PlanRun.Options) throws -> PlanRun {
        let plan = try #require(expectPlan(text + "report:\n  dir: \(directory.path)\n"))
        return PlanRun(plan: plan, path: "test.plan", options: options, console: CapturingConsole().console)
    }

    /// A quiet session of `text` writing every attempt to the raw file it returns.
    private func rawSession(_ text: String) throws -> (directory: TemporaryDirectory, raw: String, session: PlanRun) {
        let directory = try TemporaryDirectory()
        let raw = directory.missing("attempts.jsonl")
        var options = PlanRun.Options(quiet: true)
        options.raw = raw
        return (directory, raw, try session(text, directory: directory, options: options))
    }

    @Test func theRawFileHasOneLinePerAttemptOfTheReport() async throws {
        // Failures and retries, so that attempts outnumber calls.
        let (directory, raw, session) = try rawSession(
            lines(
                "name: raw", "respondents: 12", "concurrency: 3", "seed: 3", "builtin:", "  questions: 4", "  error_rate: 0.2",
                "retry:", "  submit:", "    attempts: 3", "    backoff: constant", "    initial: 1ms"))
        #expect(await session.run() == .success)
        #expect(session.stopped.contains("raw writer") && session.stopped.contains("raw file"))
        let report = try RunReport.read(path: directory.path + "/raw-latest.json")
        let lines = try String(contentsOfFile: raw, encoding: .utf8).split(separator: "\n")
        let attempts = report.stepReports.values.map(\.attempts).reduce(0, +)
        #expect(lines.count == attempts)
        #expect(report.raw == RunReport.Raw(lines: attempts, dropped: 0))
        let parsed = try lines.map { try JSONValue.parse(Array($0.utf8)).get() }
        #expect(Set(parsed.compactMap { $0["respondent"] }).count == 12)
        #expect(
            parsed.filter { $0["status"] == .integer(500) }.count == report.stepReports.values.map { $0.status["500"] ?? 0 }.reduce(0, +))
        #expect(parsed.filter { $0["attempt"] == .integer(2) }.count > 0)
        // Each submit names its question (the builtin server's 1–4), retries too; the questions' lines none.
        let submits = parsed.filter { $0["endpoint"] == .string("submit") }
        #expect(submits.allSatisfy { ["1", "2", "3", "4"].map(JSONValue.string).contains($0["question"] ?? .null) })
        #expect(Set(submits.compactMap { $0["question"] }).count == 4)
        #expect(parsed.filter { $0["endpoint"] == .string("questions") }.allSatisfy { $0["question"] == nil })
    }

    /// Each line names its step, the login's included: per step, as many lines as the
    /// report has attempts.
    @Test func theRawFileNamesEveryStepTheLoginToo() async throws {
        let (directory, raw, session) = try rawSession(
            lines(
                "name: rawlogin", "respondents: 5", "concurrency: 2", "seed: 4", "builtin:", "  questions: 3", "  login: true", "api:",
                "  login: POST /session", #"  login_body: '{"member": ${respondent.id}}'"#, "  capture:", "    token: $.token",
                "  headers:", "    Authorization: Bearer ${session.token}", "answers:", #"  "*": fine"#))
        #expect(await session.run() == .success)
        let report = try RunReport.read(path: directory.path + "/rawlogin-latest.json")
        let parsed = try String(contentsOfFile: raw, encoding: .utf8).split(separator: "\n").map {
            try JSONValue.parse(Array($0.utf8)).get()
        }
        for name in ["login", "questions", "submit"] {
            let attempts = try #require(report.stepReports[name]).attempts
            #expect(attempts > 0)
            #expect(parsed.filter { $0["endpoint"] == .string(name) }.count == attempts, "\(name)")
        }
    }

    /// Scraped twice during a run, the counts grow; any other path is 404; no verdict is served
    /// before the run's end. The run goes on until the test has scraped, which then ends it as
    /// an `abort` threshold would (`endEarly()`), rather than racing a duration of the run.
    @Test func liveMetricsAreServedWhileTheRunGoesOn() async throws {
        let directory = try TemporaryDirectory()
        var options = PlanRun.Options(quiet: true)
        options.metricsListen = MetricsListener.Address(host: "127.0.0.1", port: 0)
        options.metricsInterval = .milliseconds(20)
        // The duration only bounds a run the test failed to end.
        let session = try session(
            lines(
                "name: live", "respondents: 1000000", "concurrency: 2", "duration: 120s", "seed: 3", "builtin:", "  questions: 4",
                "  latency: 1ms"),
            directory: directory, options: options)
        let started = Mutex<(port: Int?, coordinator: RunCoordinator)?>(nil)
        session.onStart = { metricsPort, coordinator in started.withLock { $0 = (metricsPort, coordinator) } }
        func attempts(_ text: String) -> Double {
            parsePrometheus(text).filter { $0.name == "survey_bot_attempts_total" }.map(\.value).reduce(0, +)
        }
        let scraping = Task { () throws -> [(status: Int, body: String)] in
            guard await eventually(within: 60, { started.withLock { $0 } != nil }), let (port, coordinator) = started.withLock({ $0 })
            else { return [] }
            defer { coordinator.endEarly() }
            guard let port else { return [] }
            let first = try await scrape(port: port)
            var second = first
            // Scraped again until the counts have grown: the listener renders every 20 ms, and
            // the run goes on until this task ends it.
            _ = try await eventually(within: 60) {
                second = try await scrape(port: port)
                return attempts(second.body) > attempts(first.body)
            }
            return [first, second, try await scrape(port: port, path: "/other")]
        }
        // Ended early, the run fails, as one an abort threshold stops does, whatever its figures.
        #expect(await session.run() == .failure)
        let results = try await scraping.value
        try #require(results.count == 3)
        #expect(results[0].status == 200 && results[1].status == 200)
        #expect(results[2].status == 404)
        let first = attempts(results[0].body)
        let second = attempts(results[1].body)
        #expect(second > first, "the counts did not grow: \(first) then \(second)")
        #expect(!results[1].body.contains("survey_bot_passed"))
        #expect(session.stopped.contains("metrics listener"))
    }

    /// Once the run has ended, and until the listener closes, the page shows the final verdict
    /// and the report the files got is served: byte for byte the JSON file.
    @Test func theFinalStateIsServedOnceTheRunHasEnded() async throws {
        let directory = try TemporaryDirectory()
        var options = PlanRun.Options(quiet: true)
        options.metricsListen = MetricsListener.Address(host: "127.0.0.1", port: 0)
        let session = try session(
            lines(
                "name: final", "respondents: 6", "concurrency: 2", "seed: 3", "builtin:", "  questions: 3", "thresholds:",
                "  submit.success_rate: \">= 50%\""),
            directory: directory, options: options)
        let seen = Mutex<[String: (status: Int, body: String)]>([:])
        session.onFinish = { port in
            guard let port else { return }
            for path in ["/", "/live/fragment", "/report.json", "/report.html", "/metrics"] {
                if let result = try? await scrape(port: port, path: path) { seen.withLock { $0[path] = result } }
            }
        }
        #expect(await session.run() == .success)
        let served = seen.withLock { $0 }
        let written = try String(contentsOfFile: directory.path + "/final-latest.json", encoding: .utf8)
        #expect(served["/report.json"]?.status == 200 && served["/report.json"]?.body == written)
        let report = try RunReport.read(path: directory.path + "/final-latest.json")
        #expect(served["/report.html"]?.body == HTMLReport.render(report))
        for path in ["/", "/live/fragment"] {
            let body = served[path]?.body ?? ""
            #expect(body.contains("data-final=\"true\">Run ended: ✓ passed 1 threshold<"), "\(path): \(body)")
            #expect(body.contains("id=\"completed\">6<"), "\(path)")
        }
        let passed = (served["/metrics"]?.body ?? "").split(separator: "\n").filter { $0.hasPrefix("survey_bot_passed{") }
        #expect(passed.count == 1 && passed[0].contains("plan=\"final\"") && passed[0].hasSuffix("} 1"), "\(passed)")
        // The listener outlives the run's loops and the report's writing; the signals are restored last.
        #expect(Array(session.stopped.suffix(3)) == ["output", "metrics listener", "signals"], "\(session.stopped)")
    }

    /// `--metrics-linger`: the final state stays served that long after the report is written.
    @Test func theListenerLingersForItsDuration() async throws {
        let directory = try TemporaryDirectory()
        var options = PlanRun.Options(quiet: true)
        options.metricsListen = MetricsListener.Address(host: "127.0.0.1", port: 0)
        options.metricsLinger = .seconds(2)
        let session = try session(
            lines("name: linger", "respondents: 2", "concurrency: 2", "seed: 3", "builtin:", "  questions: 2"), directory: directory,
            options: options)
        let finished = Mutex<ContinuousClock.Instant?>(nil)
        let late = Mutex<String?>(nil)
        session.onFinish = { port in
            guard let port else { return }
            // Asked 300 ms after onFinish has returned: only the linger keeps the listener there.
            // Asked from a thread of its own, not from a task: a busy machine may keep the
            // cooperative pool's threads from a task for longer than the linger lasts.
            Thread {
                usleep(300_000)
                guard let client = try? RawClient(port: port) else { return late.withLock { $0 = "refused" } }
                client.writeAll(Array("GET /report.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
                let answer = client.read(until: .now + .seconds(30), stopAfter: 12).bytes
                late.withLock { $0 = String(decoding: answer.prefix(12), as: UTF8.self) }
            }.start()
            finished.withLock { $0 = ContinuousClock.now }
        }
        #expect(await session.run() == .success)
        let ended = ContinuousClock.now
        let at = try #require(finished.withLock { $0 })
        #expect(ended - at >= .seconds(2))
        // The late request met the listener well inside the linger (1.7 s of margin).
        #expect(await eventually { late.withLock { $0 } != nil })
        #expect(late.withLock { $0 } == "HTTP/1.1 200", "\(late.withLock { $0 } ?? "")")
    }

    @Test func aLingerNeedsAListenerAndADuration() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("quick.plan", lines("target: builtin", "respondents: 1", "answers:", "  \"*\": yes"))
        let alone = await runCommand(["run", plan, "--out", directory.path, "--metrics-linger", "30s"])
        #expect(alone.status == .validationFailure)
        #expect(alone.err.contains("--metrics-linger 30s: there is nothing to linger without --metrics-listen"), "\(alone.err)")
        let soon = await runCommand(["run", plan, "--out", directory.path, "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "soon"])
        #expect(soon.status == .validationFailure)
        #expect(soon.err.contains("--metrics-linger soon: expected a duration, like 30s or 2m"), "\(soon.err)")
    }

    @Test func aBadAddressOrABusyPortExitsTwoNamingTheFlag() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("quick.plan", lines("target: builtin", "respondents: 1", "answers:", "  \"*\": yes"))
        for address in ["127.0.0.1:http", "127.0.0.1:70000", "::1:9464", "[::1:9464", "70000", ":"] {
            let result = await runCommand(["run", plan, "--out", directory.path, "--metrics-listen", address])
            #expect(result.status == .validationFailure, "\(address)")
            #expect(result.err.contains("--metrics-listen \(address): "), "\(address): \(result.err)")
        }
        #expect(try MetricsListener.Address.parse("[::1]:9464") == MetricsListener.Address(host: "::1", port: 9464))
        #expect(try MetricsListener.Address.parse("localhost:0") == MetricsListener.Address(host: "localhost", port: 0))
        // A port alone is loopback's.
        #expect(try MetricsListener.Address.parse("9464") == MetricsListener.Address(host: "127.0.0.1", port: 9464))
        #expect(try MetricsListener.Address.parse(":9464") == MetricsListener.Address(host: "127.0.0.1", port: 9464))

        let group = EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let busy = try HTTPServer(host: "127.0.0.1", port: 0, group: group) { _ in .close }
        defer { Task { await busy.shutdown() } }
        let result = await runCommand(["run", plan, "--out", directory.path, "--metrics-listen", "127.0.0.1:\(busy.port)"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("--metrics-listen 127.0.0.1:\(busy.port): cannot listen on"), "\(result.err)")
        #expect(result.err.contains("nothing was sent"))
        // No banner says it is running first.
        #expect(!result.err.contains("running"), "\(result.err)")
    }

    @Test func aRawPathThatIsNotAFileExitsTwoBeforeAnythingIsSent() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("quick.plan", lines("target: builtin", "respondents: 1", "answers:", "  \"*\": yes"))
        let fifo = directory.missing("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let result = await runCommand(["run", plan, "--out", directory.path, "--raw", fifo])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("--raw: cannot write \(fifo): is a FIFO, not a file; nothing was sent"), "\(result.err)")
    }
}
