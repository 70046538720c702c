import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

@Suite struct NothingLostTests {
    /// `kill` (SIGTERM) and a closed terminal (SIGHUP) stop a run as Ctrl-C does: a partial
    /// report that is a true account of what the server saw, and 128 + the signal's number as the
    /// exit status (143, 129), as a shell reports a process the signal ended. The server is one of
    /// its own, not the builtin one, so that its count outlives the run (as for SIGINT in
    /// `RunEndToEndTests`).
    @Test(arguments: [SIGTERM, SIGHUP])
    func sigtermAndSighupWriteAPartialReportLikeSigint(signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "term.plan",
            """
            name: term
            respondents: 100000
            concurrency: 4
            think: 5s
            answers:
              "*": yes
            report:
              formats: [json, junit]
            """)
        let (server, url) = try await startServer(["--latency", "20ms"])
        // Each respondent thinks 5 s before each of its ten answers. The signal goes once the
        // server has seen the four first respondents ask for their questions and one submit:
        // the run is under way (its signal handling too), and for the next 45 s none of the four
        // can have finished its survey, nor a fifth have started — a window a machine busy with
        // other tests does not close (1 s of think time once let a stalled test signal late).
        // The signal ends the thinking at once: the test takes no longer for it.
        let run = try ChildProcess(surveyBot: ["run", plan, "--target", url, "--out", directory.path, "--quiet"])
        let underWay = try await eventually {
            let stats = try await fetchStats(url)
            return stats.requests("questions") >= 4 && stats.requests("submit") >= 1
        }
        #expect(underWay, "the run never got going: \(run.standardError)")
        run.signal(signal)
        let status = await run.wait(seconds: 30)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 128 + signal, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/term-latest.json")
        #expect(report.interrupted)
        #expect(report.respondents.started == 4, "\(report.respondents)")
        #expect(report.respondents.abandonedReasons == ["interrupted": 4], "\(report.respondents)")
        // Every attempt the server saw is in the report, and the answers it accepted are the
        // answers the report keeps.
        #expect(report.stepReports["questions"]?.attempts == stats.requests("questions"))
        #expect(report.stepReports["submit"]?.attempts == stats.requests("submit"))
        #expect(report.answers.submitted == report.stepReports["submit"]?.succeeded)
        #expect(report.answers.submitted == stats.endpoints["submit"]?["200"])
        #expect(report.answers.submitted > 0)
        let junit = try String(contentsOfFile: directory.path + "/term-latest.xml", encoding: .utf8)
        #expect(junit.contains("the run was interrupted before its end"))
    }

    /// Kills runs with SIGKILL at moments spread over their life, report writing included:
    /// the latest report is never cut, and never lost to a later run that was killed.
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
        let latest = directory.path + "/kill-latest.json"
        // A whole run first: its report is the one each killed run may only replace whole. Its
        // length spreads the kills below over the life of a run, from start-up to the last write.
        // On a busy machine a run lives longer; the kills then spread over its first 2 s only,
        // so that the test does not grow with the load (twelve rounds sleep 6.5 lives in all).
        let whole = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"])
        #expect(await whole.wait(seconds: 60) == 0, "\(whole.standardError)")
        let life = min(try #require(whole.lifetime), .seconds(2))
        _ = try RunReport.read(path: latest)
        for round in 1...12 {
            let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"])
            // Where in the run the kill lands varies with the machine's pace; the verdict does not.
            try await Task.sleep(for: life * Double(round) / 12)
            run.signal(SIGKILL)
            _ = await run.wait(seconds: 20)
            // Still there and whole, from this run or an earlier one: a report is renamed over
            // the last one only once it is complete.
            #expect(FileManager.default.fileExists(atPath: latest), "round \(round)")
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            for name in names where name.hasSuffix(".json") && !name.hasPrefix(".") {
                #expect(throws: Never.self, "round \(round): \(name)") { try RunReport.read(path: directory.path + "/" + name) }
            }
        }
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
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path], environment: environment)
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

/// A full disk, made real: the run's report directory is a tiny tmpfs mounted in a private mount
/// namespace (`unshare -m`), which vanishes with the process. Needs root, as CI has.
@Suite(.enabled(if: canMountPrivately)) struct DiskFullTests {
    /// `survey-bot run PLAN --target URL --out MOUNT/reports`, with a tmpfs of `size` mounted on
    /// `mount`, and `then` run by the shell while survey-bot runs (its stderr goes to `$log`).
    private func runOnTinyVolume(
        _ mount: TemporaryDirectory, size: String, plan: String, target: String, then: String = ""
    ) throws -> ChildProcess {
        let script = """
            mount -t tmpfs -o size=$1 tmpfs "$2" || exit 99
            log=$(mktemp)
            "$3" run "$4" --target "$5" --out "$2/reports" 2>"$log" &
            run=$!
            \(then)
            wait $run
            status=$?
            cat "$log" >&2
            ls -a "$2/reports" >&2
            exit $status
            """
        return try ChildProcess("/usr/bin/unshare", ["-m", "sh", "-c", script, "sh", size, mount.path, executablePath(), plan, target])
    }

    @Test func aFullDiskIsRefusedBeforeAnyTraffic() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("full.plan", "name: full\nrespondents: 5\nanswers:\n  \"*\": yes\n")
        let (server, url) = try await startServer([])
        let volume = try TemporaryDirectory()
        let run = try runOnTinyVolume(volume, size: "256k", plan: plan, target: url)
        let status = await run.wait(seconds: 30)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 2, "\(run.standardError)")
        #expect(run.standardError.contains("KiB free for the report directory"))
        #expect(run.standardError.contains("needs 1 MiB"))
        #expect(run.standardError.contains("nothing was sent"))
        #expect(stats.requests("questions") == 0 && stats.requests("submit") == 0)
    }

    /// The disk fills up while the run goes on: the report cannot be written, but its summary
    /// still reaches stdout, the error says why, and no half-written file is left behind.
    @Test func aDiskThatFillsDuringTheRunLosesNoNumbers() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write(
            "fills.plan",
            """
            name: fills
            respondents: 100000
            concurrency: 2
            duration: 30s
            answers:
              "*": yes
            report:
              formats: [json, markdown]
            """)
        let (server, url) = try await startServer([])
        // Filled once the run has started, that is once the report directory passed its checks;
        // then SIGTERM ends the run, so that its report is written only after the disk is full
        // however long filling took (the 30 s duration only bounds a run the signal missed).
        let fill =
            #"until grep -q running "$log" || ! kill -0 $run 2>/dev/null; do sleep 0.05; done; dd if=/dev/zero of="$2/reports/filler" bs=4k 2>/dev/null; kill -TERM $run"#
        let volume = try TemporaryDirectory()
        let run = try runOnTinyVolume(volume, size: "1200k", plan: plan, target: url, then: fill)
        let status = await run.wait(seconds: 60)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 1, "\(run.standardError)")
        #expect(run.standardOutput.contains("fills: "))
        #expect(run.standardOutput.contains("respondents: "))
        #expect(run.standardError.contains("no space left on device"))
        #expect(run.standardError.contains("the summary above is all that is left of this run"))
        // `ls -a` of the report directory: the filler alone, no report and no temporary file.
        let listing = run.standardError.split(separator: "\n").map(String.init)
        #expect(!listing.contains { $0.hasPrefix("fills") || $0.contains(".tmp-") }, "\(listing)")
        #expect(listing.contains("filler"))
    }
}
