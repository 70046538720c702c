import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// Starts `survey-bot` with `arguments` under `sh -c 'ulimit …; exec survey-bot …'`: a process
/// with a limit on open files that only it has.
private func surveyBot(ulimit: String, _ arguments: [String]) throws -> ChildProcess {
    try ChildProcess("/bin/sh", ["-c", "ulimit \(ulimit) || exit 99; exec \"$0\" \"$@\"", try executablePath()] + arguments)
}

/// 200 respondents, 100 at once: far more connections than 40 descriptors allow.
private let crowdedPlan = """
    name: crowded
    respondents: 200
    concurrency: 100
    timeout: 2s
    seed: 3
    builtin:
      questions: 2
    answers:
      "*": yes
    report:
      formats: [json, markdown]
    """

private let warning = "warning: survey-bot ran out of file descriptors or local ports"

/// Runs of the real executable that meet their own limits: descriptors, and (below) their
/// duration.
@Suite struct RunLimitsEndToEndTests {
    @Test func aRunOutOfDescriptorsWarnsOnceCountsItApartAndFails() async throws {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("crowded.plan", crowdedPlan)
        let (server, url) = try await startServer([])
        let run = try surveyBot(ulimit: "-n 40", ["run", planPath, "--target", url, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)

        #expect(status == 1, "exit \(status): \(run.standardError)")
        let stderr = run.standardError
        #expect(stderr.components(separatedBy: warning).count == 2, "one warning, even with --quiet: \(stderr)")
        #expect(stderr.contains("Too many open files (EMFILE)"), "\(stderr)")
        #expect(stderr.contains("open files are limited to 40 (hard limit 40) by ulimit -n"), "\(stderr)")
        #expect(stderr.contains("--concurrency") && stderr.contains("--threads"), "\(stderr)")
        let report = try RunReport.read(path: directory.path + "/crowded-latest.json")
        #expect(!report.passed)
        let local = try #require(report.localResource)
        #expect(local.attempts > 0)
        #expect(local.openFilesLimit == 40 && local.openFilesHardLimit == 40)
        var notSent = 0
        for name in ["questions", "submit"] {
            let endpoint = try #require(report.stepReports[name])
            notSent += endpoint.localResource ?? 0
            // Counted apart: the attempts the report says were sent are exactly what the server saw.
            #expect(endpoint.attempts == stats.requests(name), "\(name): report vs server")
            #expect(endpoint.errors["connection_refused"] == nil && endpoint.errors["local_resource"] == nil, "\(endpoint.errors)")
        }
        #expect(notSent == local.attempts)
        #expect(report.respondents.abandonedReasons["local_resource"] ?? 0 > 0, "\(report.respondents)")
        let markdown = try String(contentsOfFile: directory.path + "/crowded-latest.md", encoding: .utf8)
        #expect(markdown.contains("❌ failed: out of local resources"))
    }

    @Test func aBuiltinServerSharingTheLimitFailsTheRunToo() async throws {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("crowded.plan", crowdedPlan)
        let run = try surveyBot(ulimit: "-n 40", ["run", planPath, "--out", directory.path, "--quiet", "--threads", "2"])
        let status = await run.wait(seconds: 60)
        #expect(status == 1, "exit \(status): \(run.standardError)")
        #expect(run.standardError.components(separatedBy: warning).count == 2, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/crowded-latest.json")
        #expect(!report.passed)
        #expect(report.localResource != nil)
    }

    @Test func aHangingServerCannotKeepARunPastItsDurationAndGrace() async throws {
        // Every request hangs; each attempt's own timeout is 60 s and the questions are retried.
        // The 3 s duration and 500 ms grace end the run at 3.5 s all the same. The four workers'
        // first respondents start and send at once: 3 s, not 1 s, so that loops a busy machine
        // keeps from their cores still send all four before the duration expires (a respondent
        // started after it is not started, one started just as it expires is cut unsent).
        let directory = try TemporaryDirectory()
        let planPath = try directory.write(
            "capped.plan",
            """
            name: capped
            respondents: 1000
            concurrency: 4
            duration: 3s
            grace: 500ms
            timeout: 60s
            report:
              formats: [json]
            """)
        let (server, url) = try await startServer(["--hang-rate", "100%"])
        let run = try ChildProcess(surveyBot: ["run", planPath, "--target", url, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 120)
        let elapsed = try #require(run.lifetime)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)

        #expect(status == 1, "no thresholds, none completed (the implicit survey.completion_rate > 0): \(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/capped-latest.json")
        #expect(report.stoppedBy == "duration")
        #expect(report.respondents.started == 4)
        #expect(report.respondents.cutShort == 4)
        #expect(report.respondents.abandoned == 0 && report.respondents.completed == 0)
        #expect(report.stepReports["questions"]?.errors == ["timeout": 4])
        #expect(report.stepReports["questions"]?.attempts == stats.requests("questions"))
        #expect(report.plan.grace == "500ms")
        // The cap, not the timeout, ended the attempts. An attempt the cap missed would run its
        // whole 60 s timeout, and the run with it: that, not a guess at how slow a busy machine
        // is, is the bound. The run cannot end before its cutoff, 3.5 s in: its attempts hang.
        let timeToFail = try #require(report.stepReports["questions"]?.failedLatencyMs)
        #expect(timeToFail.max < 60_000, "an attempt ran its timeout: \(timeToFail)")
        #expect(report.durationS >= 3.5 && report.durationS < 60, "\(report.durationS)")
        #expect(elapsed < .seconds(60), "took \(elapsed)")
    }

    @Test func tooFewDescriptorsForTheEventLoopsIsAnErrorNotACrash() async throws {
        // 64 loops need 128 descriptors of their own; 32 are allowed. Before, a precondition
        // stopped the process (SIGILL, exit 132) with "eventfd failed: errno 24".
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("crowded.plan", crowdedPlan)
        let (server, url) = try await startServer([])
        let run = try surveyBot(
            ulimit: "-n 32", ["run", planPath, "--target", url, "--out", directory.path, "--quiet", "--threads", "64"])
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 2, "exit \(status): \(run.standardError)")
        #expect(run.standardError.contains("Error: cannot start event loop"), "\(run.standardError)")
        #expect(run.standardError.contains("Too many open files (EMFILE)"), "\(run.standardError)")
        #expect(run.standardError.contains("limited to 32 (hard limit 32) by ulimit -n; nothing was sent"), "\(run.standardError)")
        #expect(stats.requests("questions") + stats.requests("submit") == 0)
        let serve = try surveyBot(ulimit: "-n 32", ["serve", "--port", "0", "--threads", "64"])
        #expect(await serve.wait(seconds: 30) == 2, "\(serve.standardError)")
        #expect(serve.standardError.contains("Error: cannot start event loop"), "\(serve.standardError)")
    }

    @Test func theSoftLimitIsRaisedToTheHardLimitAtStart() async throws {
        // A soft limit of 40 under a hard limit high enough for the run: raised at start, as Go
        // programs do, it is no limit, and the run passes.
        let hard = try #require(OpenFilesLimit.current()).hard
        try #require(hard >= 1024, "the test process's hard limit on open files is \(hard)")
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("crowded.plan", crowdedPlan)
        let (server, url) = try await startServer([])
        let run = try surveyBot(ulimit: "-Sn 40", ["run", planPath, "--target", url, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 0, "exit \(status): \(run.standardError)")
        #expect(!run.standardError.contains(warning))
        let report = try RunReport.read(path: directory.path + "/crowded-latest.json")
        #expect(report.localResource == nil)
        #expect(report.respondents.completed == 200)
    }
}
