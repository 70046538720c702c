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

/// Whether this process may mount a tmpfs in a private mount namespace.
private let canMountPrivately: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

/// A full disk, made real: the run's report directory is a tiny tmpfs mounted in a private mount
/// namespace (`unshare -m`), which vanishes with the process. Needs root, as CI has.
@Suite(.enabled(if: canMountPrivately)) struct DiskFullTests {
    /// `survey-bot run PLAN --target URL --out MOUNT/reports`, with a tmpfs of `size` mounted on
    /// `mount`, and `then` run by the shell while survey-bot runs (its stderr goes to `$log`).
    private func runOnTinyVolume(
        _ mount: TemporaryDirectory, size: String, plan: String, target: String, then: String = ""
    ) throws -> RunningTool {
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
        return try RunningTool(
            ["-m", "sh", "-c", script, "sh", size, mount.path, executablePath(), plan, target], executable: "/usr/bin/unshare")
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
            duration: 1500ms
            answers:
              "*": yes
            report:
              formats: [json, markdown]
            """)
        let (server, url) = try await startServer([])
        // Filled once the run has started, that is once the report directory passed its checks.
        let fill =
            #"until grep -q running "$log" || ! kill -0 $run 2>/dev/null; do sleep 0.05; done; dd if=/dev/zero of="$2/reports/filler" bs=4k 2>/dev/null"#
        let volume = try TemporaryDirectory()
        let run = try runOnTinyVolume(volume, size: "1200k", plan: plan, target: url, then: fill)
        let status = await run.wait(seconds: 30)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        #expect(status == 1, "\(run.standardError)")
        #expect(run.standardOutput.contains("fills: "))
        #expect(run.standardOutput.contains("respondents: "))
        #expect(run.standardError.contains("No space left on device"))
        #expect(run.standardError.contains("the summary above is all that is left of this run"))
        // `ls -a` of the report directory: the filler alone, no report and no temporary file.
        let listing = run.standardError.split(separator: "\n").map(String.init)
        #expect(!listing.contains { $0.hasPrefix("fills") || $0.contains(".tmp-") }, "\(listing)")
        #expect(listing.contains("filler"))
    }
}
