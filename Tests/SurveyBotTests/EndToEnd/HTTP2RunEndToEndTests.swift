import Foundation
import SurveyEngine
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

#if canImport(Glibc)
    import Glibc
#endif

private let plan = """
    name: h2
    respondents: 24
    concurrency: 6
    seed: 11
    http: 2
    connections: shared
    answers:
      "*": yes
    """

/// The real executable speaking HTTP/2 to the reference server: `target: builtin` with `http: 2`
/// just works, over `builtin.tls` (h2) and in cleartext (h2c), and against `serve --http2` with
/// reset streams and GOAWAY the report and the server's `/__stats` agree.
@Suite struct HTTP2RunEndToEndTests {
    /// Runs `text` as a plan against `serve --http2` with `serve` options, then ends the server:
    /// the run's exit status and report, the server's `/__stats`, and what the run printed.
    func runAgainstServe(_ text: String, serve options: [String], run arguments: [String] = []) async throws -> (
        status: Int32, report: RunReport, stats: ReferenceServerStats, errors: String
    ) {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("h2.plan", text)
        let (server, url) = try await startServer(["--http2"] + options)
        defer { server.stop() }
        let run = try ChildProcess(surveyBot: ["run", planPath, "--target", url, "--out", directory.path, "--quiet"] + arguments)
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
        return (status, try RunReport.read(path: "\(directory.path)/h2-latest.json"), stats, run.standardError)
    }

    @Test(arguments: [false, true])
    func aBuiltinRunOverHTTP2ReportsItsProtocolAndEveryRequest(tls: Bool) async throws {
        let directory = try TemporaryDirectory()
        let text = plan + "\ntarget: builtin\nbuiltin:\n  questions: 5\n  tls: \(tls)\n"
        let planPath = try directory.write("h2.plan", text)
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        #expect(status == 0, "\(run.standardError)")
        let report = try RunReport.read(path: "\(directory.path)/h2-latest.json")
        #expect(report.respondents.completed == 24)
        let wire = tls ? "h2" : "h2c"
        for (step, attempts) in [("questions", 24), ("submit", 120)] {
            let endpoint = try #require(report.stepReports[step])
            // No faults: the builtin server answered each request once, as the report counts it.
            #expect(endpoint.attempts == attempts)
            #expect(endpoint.succeeded == attempts)
            let protocols = try #require(endpoint.connections?.protocols)
            #expect(Set(protocols.keys) == [wire], "\(protocols)")
            #expect(protocols[wire]?.attempts == attempts)
            // Shared: a handful of connections carry every stream.
            #expect((protocols[wire]?.connections ?? 0) <= 6, "\(protocols)")
        }
    }

    /// `connections: per_respondent` from the plan, over HTTP/1.1 and h2c: the server accepts
    /// one connection a respondent (and one for its stats), and every other request of a
    /// respondent goes out on it.
    @Test(arguments: ["1.1", "2"])
    func aConnectionPerRespondentIsWhatTheServerCounts(http: String) async throws {
        let text = plan.replacingOccurrences(of: "connections: shared", with: "connections: per_respondent")
            .replacingOccurrences(of: "http: 2", with: "http: \(http)")
        let (status, report, stats, errors) = try await runAgainstServe(text, serve: ["--questions", "5"])
        #expect(status == 0, "\(errors)")
        #expect(report.respondents.completed == 24)
        #expect(stats.connectionsAccepted == 24 + 1, "\(stats)")
        #expect(report.stepReports["questions"]?.connections?.new == 24)
        #expect(report.stepReports["submit"]?.connections?.new == 0)
        #expect(report.stepReports["submit"]?.connections?.reused == 120)
    }

    @Test(arguments: [
        (["--hang-rate", "100%"], "timeout"), (["--slow-rate", "100%", "--trickle", "1s"], "timeout"),
        (["--reset-rate", "100%"], "stream_reset"), (["--malformed-rate", "100%"], "stream_reset"),
    ])
    func eachFaultBreaksItsStreamAndIsCountedLikeTheServerCountsIt(serve options: [String], kind: String) async throws {
        // A short timeout where the fault is that no answer comes; elsewhere one far above any
        // loopback answer, so that a busy machine cannot turn a reset into a `timeout`.
        let (status, report, stats, _) = try await runAgainstServe(
            plan + "\ntimeout: \(kind == "timeout" ? "300ms" : "30s")\n", serve: options,
            run: ["--respondents", "4", "--concurrency", "4"])
        let questions = try #require(report.stepReports["questions"])
        // Every respondent's fetch fails the same way; none gets as far as a submit.
        #expect(questions.errors == [kind: questions.attempts], "\(questions.errors)")
        #expect(report.respondents.abandoned == 4)
        #expect(status == 1, "none completed: the implicit completion rate fails")
        #expect(questions.attempts == stats.requests("questions"))
        #expect(questions.connections?.protocols.map { Set($0.keys) } == ["h2c"])
    }

    @Test func resetStreamsAndGoAwayAgainstServeAddUpWithTheServersCounts() async throws {
        let (status, report, stats, errors) = try await runAgainstServe(
            plan, serve: ["--reset-rate", "4%", "--goaway-rate", "4%", "--seed", "5"])
        #expect(status == 0, "\(errors)")
        let attempts = report.stepReports.values.reduce(0) { $0 + $1.attempts }
        let reconnects = report.stepReports.values.reduce(0) { $0 + ($1.connections?.reconnects ?? 0) }
        var outcomes: [String: Int] = [:]
        for name in ["questions", "submit"] { outcomes.merge(stats.endpoints[name] ?? [:], uniquingKeysWith: +) }
        // A stream GOAWAY left unprocessed reached the server ("goaway", or "closed" when it
        // crossed the GOAWAY) and went out again on a new connection: one attempt and one
        // reconnect in the report, two requests at the server. Left unprocessed a second time,
        // it fails as `connection_closed` instead of going out a third. A reset stream is a
        // failed attempt, retried as another.
        #expect((outcomes["goaway"] ?? 0) > 0, "\(outcomes)")
        #expect((outcomes["reset"] ?? 0) > 0, "\(outcomes)")
        let twice = report.stepReports.values.reduce(0) { $0 + ($1.errors["connection_closed"] ?? 0) }
        #expect(reconnects + twice == (outcomes["goaway"] ?? 0) + (outcomes["closed"] ?? 0), "\(outcomes)")
        #expect(attempts + reconnects == stats.requests("questions") + stats.requests("submit"))
        let resets = report.stepReports.values.reduce(0) { $0 + ($1.errors["stream_reset"] ?? 0) }
        #expect(resets == outcomes["reset"])
        for endpoint in report.stepReports.values {
            #expect(endpoint.connections?.protocols.map { Set($0.keys) } == ["h2c"])
        }
    }
}
