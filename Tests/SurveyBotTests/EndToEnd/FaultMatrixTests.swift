import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// One row of the fault matrix: how the server misbehaves and what the report must say.
struct FaultCase: Sendable, CustomTestStringConvertible {
    var name: String
    /// `survey-bot serve` options; nil for "nothing listens".
    var serve: [String]?
    /// A questions body served verbatim, when the fault is in the body.
    var questionsBody: [UInt8]? = nil
    var step: String
    /// The error (`errors` key of the report) every attempt of `step` must show.
    var kind: String
    /// How many attempts `step` gets: each of the 4 respondents makes every attempt its
    /// retry policy allows, since every one fails — 2 per questions call (a respondent without
    /// questions abandons), 2 per submit of each of the 10 questions; 1 for a fault the policy
    /// does not retry (`response_too_large` is not among the plan's `on:`).
    var attempts: Int
    /// The reason the report's error samples give for `kind`, where the kind has more to say.
    var reason: String? = nil

    var testDescription: String { name }
}

private let plan = """
    name: fault
    target: http://127.0.0.1:1
    respondents: 4
    concurrency: 4
    timeout: 10s
    seed: 5
    answers:
      "*": yes
    retry:
      questions:
        attempts: 2
        backoff: constant
        initial: 10ms
        on: [5xx, 4xx, timeout, connection, malformed]
      submit:
        attempts: 2
        backoff: constant
        initial: 10ms
        on: [5xx, 4xx, timeout, connection, malformed]
    report:
      formats: [json]
    """

/// The timeout of a case whose fault is that no answer comes in time. Every other case gets
/// 10 s, far above any loopback answer, so that a busy machine cannot turn its fault into a
/// `timeout`.
private let shortTimeout = 0.3

/// The longest a run of `timeout` can take: every call of the survey failing every attempt at
/// the timeout, with the backoff between, (1 questions call + 10 submits) × 2 × (timeout +
/// 10 ms) — plus a generous minute for starting processes on a busy machine, which still tells
/// a run of the short timeout (under 67 s) from one that waited the plan's 10 s instead (220 s).
private func boundSeconds(timeout: Double) -> Double { 11 * 2 * (timeout + 0.01) + 60 }

private let cases: [FaultCase] = [
    FaultCase(name: "connection refused (nothing listening)", serve: nil, step: "questions", kind: "connection_refused", attempts: 8),
    FaultCase(
        name: "reset instead of an answer", serve: ["--reset-rate", "100%"], step: "questions", kind: "connection_reset", attempts: 8),
    FaultCase(name: "accepts and never answers", serve: ["--hang-rate", "100%"], step: "questions", kind: "timeout", attempts: 8),
    FaultCase(
        name: "trickles one byte a second", serve: ["--slow-rate", "100%", "--trickle", "1s"], step: "questions", kind: "timeout",
        attempts: 8),
    FaultCase(
        name: "malformed status line", serve: ["--malformed-rate", "100%"], step: "questions", kind: "malformed_response", attempts: 8,
        reason: "not an HTTP/1.x status line"),
    FaultCase(
        name: "garbage headers", serve: ["--malformed-rate", "100%", "--malformed-kind", "headers"], step: "questions",
        kind: "malformed_response", attempts: 8, reason: "a malformed header field"),
    FaultCase(
        name: "bytes that are not HTTP, then a close", serve: ["--malformed-rate", "100%", "--malformed-kind", "binary"],
        step: "questions", kind: "malformed_response", attempts: 8, reason: "not an HTTP/1.x status line"),
    FaultCase(
        name: "questions not a list", serve: [], questionsBody: Array(#"{"id":1}"#.utf8), step: "questions", kind: "malformed_response",
        attempts: 8, reason: #"the questions are not a JSON array; the server sent {"id":1}"#),
    FaultCase(
        name: "questions without ids", serve: [], questionsBody: Array(#"[{"question":"a"}]"#.utf8), step: "questions",
        kind: "malformed_response", attempts: 8,
        reason: #"question 1 has no 'id', an integer or a string; the server sent [{"question":"a"}]"#),
    FaultCase(
        name: "duplicate question ids", serve: [], questionsBody: Array(#"[{"id":1,"question":"a"},{"id":1,"question":"b"}]"#.utf8),
        step: "questions", kind: "malformed_response", attempts: 8,
        reason: #"question id 1 appears twice; the server sent [{"id":1,"question":"a"},{"id":1,"question":"b"}]"#),
    FaultCase(
        name: "empty questions list", serve: [], questionsBody: Array("[]".utf8), step: "questions", kind: "malformed_response",
        attempts: 8, reason: "the questions list is empty; the server sent []"),
    FaultCase(
        name: "a 10 MB questions body", serve: [],
        questionsBody: Array("[" + String(repeating: " ", count: 10 << 20) + "]").map { $0.asciiValue! },
        step: "questions", kind: "response_too_large", attempts: 4, reason: "a body over 1048576 bytes"),
    FaultCase(name: "5xx storm", serve: ["--error-rate", "100%"], step: "questions", kind: "http_5xx", attempts: 8),
    FaultCase(name: "400 storm", serve: ["--fail-rate", "100%"], step: "submit", kind: "http_4xx", attempts: 80),
]

@Suite struct FaultMatrixTests {
    @Test(arguments: cases)
    func faultIsClassifiedCountedAndBounded(_ fault: FaultCase) async throws {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("fault.plan", plan)
        var server: ChildProcess?
        var url = "http://127.0.0.1:1"
        if var options = fault.serve {
            if let body = fault.questionsBody {
                let path = directory.path + "/questions.body"
                try Data(body).write(to: URL(fileURLWithPath: path))
                options += ["--questions-raw", path]
            }
            let started = try await startServer(options)
            server = started.0
            url = started.1
        }
        let timeout = fault.kind == "timeout" ? shortTimeout : 10
        let run = try ChildProcess(surveyBot: [
            "run", planPath, "--target", url, "--out", directory.path, "--quiet", "--set", "timeout=\(Int(timeout * 1000))ms",
        ])
        let status = await run.wait(seconds: boundSeconds(timeout: timeout) + 10)
        let elapsed = try #require(run.lifetime)
        var stats: ReferenceServerStats?
        if server != nil { stats = try await fetchStats(url) }
        server?.signal(SIGTERM)
        _ = await server?.wait(seconds: 10)

        #expect(elapsed < .seconds(boundSeconds(timeout: timeout)), "took \(elapsed)")
        let report = try RunReport.read(path: directory.path + "/fault-latest.json")
        // Every attempt of the step fails, and every respondent needs it: none can complete. No
        // thresholds, so the implicit survey.completion_rate > 0 is the verdict, and it fails.
        #expect(report.respondents.completed == 0, "\(report.respondents)")
        #expect(status == 1, "exit \(status): \(run.standardError)")
        #expect(report.thresholds.map(\.threshold.implicit) == [true])
        let step = try #require(report.stepReports[fault.step])
        #expect(step.attempts == fault.attempts)
        // Every attempt of the step is classified under the fault's kind.
        #expect(step.errors[fault.kind] == step.attempts, "\(step.errors)")
        #expect(step.failedAttempts == step.attempts)
        // Every failure says why, where its kind does not say it all.
        #expect(step.errorSamples?[fault.kind] == fault.reason, "\(step.errorSamples ?? [:])")
        #expect(report.respondents.started == 4)
        if let stats {
            for name in ["questions", "submit"] {
                #expect(report.stepReports[name]?.attempts == stats.requests(name), "\(name): report vs server")
            }
        }
    }

    @Test func coldStartIsRetriedAway() async throws {
        // Four attempts: whatever the order of arrivals, no respondent can meet all three 503s
        // and still have no attempt left.
        let (report, stats) = try await runAgainst(["--cold-start", "3"], set: ["retry.questions.attempts=4"])
        let questions = try #require(report.stepReports["questions"])
        #expect(questions.status["503"] == 3)
        #expect(questions.succeeded == 4)
        #expect(report.respondents.completed == 4)
        #expect(questions.attempts == stats.requests("questions"))
    }

    @Test func serverClosingEveryConnectionStillServes() async throws {
        let (report, stats) = try await runAgainst(["--close-connections"])
        let total = report.stepReports.values.reduce(0) { $0 + $1.attempts }
        let reconnects = report.stepReports.values.reduce(0) { $0 + ($1.connections?.reconnects ?? 0) }
        let serverClosed = (stats.endpoints["questions"]?["closed"] ?? 0) + (stats.endpoints["submit"]?["closed"] ?? 0)
        // A request sent just as the server closed its kept-alive connection is sent again on a
        // new one: the server read it twice (once unanswered, as "closed"), the report counts
        // one attempt and one reconnect, and no attempt fails for it.
        #expect(report.stepReports.values.allSatisfy { $0.errors.isEmpty }, "\(report.stepReports.mapValues(\.errors))")
        #expect(reconnects == serverClosed)
        #expect(total + reconnects == stats.requests("questions") + stats.requests("submit"))
        #expect(report.respondents.started == 4)
        #expect(report.respondents.completed == 4)
        // The server answers once per connection: one accepted connection per attempt, plus the
        // one that asked for these stats.
        #expect(stats.connectionsAccepted == total + 1)
    }

    @Test func serverDyingMidRunEndsAsRefusals() async throws {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("fault.plan", plan.replacingOccurrences(of: "respondents: 4", with: "respondents: 200"))
        let (server, url) = try await startServer(["--latency", "5ms"])
        // Thinking 200 ms before each answer, the 200 respondents need 100 s or more against a
        // live server: the one killed below dies with most of them still to come, whatever the
        // pace, even when a busy machine stalls this test for tens of seconds before the kill.
        let run = try ChildProcess(surveyBot: [
            "run", planPath, "--target", url, "--out", directory.path, "--quiet", "--set", "think=200ms",
        ])
        // More than 40 submits: with 4 respondents at once, a fifth has started, so one of the
        // first four has submitted all its 10 answers to a live server — the run completes some
        // respondents and passes, however soon after the kill lands.
        let underWay = try await eventually { try await fetchStats(url).requests("submit") > 40 }
        #expect(underWay, "the run never got going: \(run.standardError)")
        let killedAt = ContinuousClock.now
        server.signal(SIGKILL)
        _ = await server.wait(seconds: 5)
        let status = await run.wait(seconds: 60)
        // No thresholds: a run that ends and writes its report passes, however its requests fared.
        #expect(status == 0, "\(run.standardError)")
        // The respondents still to come meet refusals at once and end: the run ends soon after
        // the kill, long before the 100 s a live server would take. Timed from the kill, not from
        // the start, which a busy machine may delay by tens of seconds.
        let ended = try #require(run.exitedAt)
        #expect(ended - killedAt < .seconds(30), "ended \(ended - killedAt) after the kill")
        let report = try RunReport.read(path: directory.path + "/fault-latest.json")
        let errors = report.stepReports.values.reduce(into: [String: Int]()) { $0.merge($1.errors, uniquingKeysWith: +) }
        // How many depends on the moment of the kill; that the respondents still to come meet
        // refusals does not.
        #expect(errors["connection_refused", default: 0] > 0, "\(errors)")
        #expect(report.respondents.started == 200)
        #expect(
            report.respondents.started == report.respondents.completed + report.respondents.finishedWithUnanswered
                + report.respondents.abandoned)
    }

    private func runAgainst(_ options: [String], set: [String] = []) async throws -> (RunReport, ReferenceServerStats) {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("fault.plan", plan)
        let (server, url) = try await startServer(options)
        let run = try ChildProcess(
            surveyBot: ["run", planPath, "--target", url, "--out", directory.path, "--quiet"] + set.flatMap { ["--set", $0] })
        let status = await run.wait(seconds: 30)
        let stats = try await fetchStats(url)
        server.signal(SIGTERM)
        _ = await server.wait(seconds: 10)
        // No thresholds: a run that ends and writes its report passes, however its requests fared.
        #expect(status == 0, "\(run.standardError)")
        return (try RunReport.read(path: directory.path + "/fault-latest.json"), stats)
    }
}

/// Reads the reference server's `/__stats`. The timeout is far above any loopback answer: the
/// server is a process a busy machine may keep waiting for a core, and a failed read fails the
/// test (in `eventually` too, which passes the error on).
func fetchStats(_ url: String, tls: TLSConfiguration = TLSConfiguration()) async throws -> ReferenceServerStats {
    let target = try HTTPTarget.parse(url).get()
    let group = EventLoopGroup(threads: 1)
    let client = try HTTPClient(target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(60), tls: tls))
    let outcome = await client.send(
        HTTPRequest(try HTTPRequest.Template(method: "GET", path: "/__stats", target: target), collectBody: true))
    await client.shutdown()
    group.shutdown()
    let response = try outcome.received.get()
    return try #require(ReferenceServerStats.parse(response.body))
}
