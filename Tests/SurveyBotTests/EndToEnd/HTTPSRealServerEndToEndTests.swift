import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

private func plan(_ url: String, respondents: Int = 12, extra: String = "") -> String {
    """
    name: real
    target: \(url)
    respondents: \(respondents)
    concurrency: 4
    seed: 5
    answers:
      "*": yes
    \(extra)
    """
}

/// The real executable against TLS servers it shares no code with — nginx and `openssl
/// s_server` on 127.0.0.1, with certificates the `openssl` command made (RSA, a private CA) —
/// and what its JSON report says of each: every attempt counted, TLS failures by kind with
/// OpenSSL's reason in `error_samples`.
@Suite(
    .enabled(
        if: Installed.openssl != nil && Installed.nginx != nil,
        "openssl or nginx is not installed: no real TLS server to run against (.ci/run installs both)"))
struct HTTPSRealServerEndToEndTests {
    /// nginx over TLS with a certificate of a private CA and three questions, and the run of 12
    /// respondents trusting that CA, with `extra` plan lines; the server, once the run ended.
    private func runAgainstNginx(
        in directory: TemporaryDirectory, extra: String = ""
    ) async throws -> (server: NginxServer, status: Int32, errors: String) {
        let certificates = OpenSSLCertificates(directory: directory)
        let authority = try await certificates.makeAuthority()
        let leaf = try await certificates.issue("server", for: ["127.0.0.1"], days: 2, by: authority)
        let server = try await NginxServer.start(
            certificate: leaf.certificate, key: leaf.key, questions: NginxServer.numberedQuestions(3))
        let planPath = try directory.write(
            "real.plan", plan("https://127.0.0.1:\(server.port)", extra: extra + "tls:\n  ca_file: \(authority.certificate)\n"))
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        return (server, await run.wait(seconds: 60), run.standardError)
    }

    @Test func aRunTrustingTheCAFileCompletesAgainstNginxAndNginxCountsTheSame() async throws {
        let directory = try TemporaryDirectory()
        let (server, status, errors) = try await runAgainstNginx(in: directory)
        // nginx logs a request once it has answered it: the last may come just after the run ends.
        let logged = await server.waitForRequests(48)
        server.stop()
        #expect(status == 0, "\(errors)")
        let report = try RunReport.read(path: "\(directory.path)/real-latest.json")
        #expect(report.respondents.completed == 12)
        let questions = try #require(report.stepReports["questions"])
        let submit = try #require(report.stepReports["submit"])
        #expect(questions.attempts == 12 && submit.attempts == 36)
        #expect(questions.errors.isEmpty && submit.errors.isEmpty)
        // nginx saw exactly the attempts the report counts, each answered 200.
        #expect(logged.filter { $0.hasPrefix("GET /questions 200 ") }.count == questions.attempts)
        #expect(logged.filter { $0.hasPrefix("POST /question/submit 200 ") }.count == submit.attempts)
        #expect(logged.count == questions.attempts + submit.attempts, "\(logged)")
        let connections = try #require(questions.connections)
        #expect(connections.tls?.keys.allSatisfy { $0.hasPrefix("TLSv1.3 ") } == true, "\(connections)")
    }

    /// `connections: per_respondent` as nginx's own log sees it: a connection per respondent
    /// (`$connection`), carrying that respondent's questions and its three answers and nothing
    /// else, each after a full handshake (`$ssl_session_reused` is `.`): a fleet of new phones.
    @Test func aConnectionPerRespondentIsWhatNginxLogs() async throws {
        let directory = try TemporaryDirectory()
        let (server, status, errors) = try await runAgainstNginx(in: directory, extra: "connections: per_respondent\n")
        let logged = await server.waitForProtocolLog(48)
        server.stop()
        #expect(status == 0, "\(errors)")
        #expect(logged.count == 48, "\(logged)")
        // method, path, status, TLS protocol, reused, client verdict, HTTP version, connection
        let fields = logged.map { $0.split(separator: " ").map(String.init) }
        let byConnection = Dictionary(grouping: fields.filter { $0.count == 8 }) { $0[7] }
        #expect(byConnection.count == 12, "\(byConnection.keys.sorted())")
        for (connection, requests) in byConnection {
            #expect(
                requests.map { "\($0[0]) \($0[1])" } == ["GET /questions"] + Array(repeating: "POST /question/submit", count: 3),
                "\(connection)")
            #expect(requests.allSatisfy { $0[4] == "." }, "\(connection): \(requests)")
        }
        let report = try RunReport.read(path: "\(directory.path)/real-latest.json")
        #expect(report.stepReports["questions"]?.connections?.new == 12)
        #expect(report.stepReports["submit"]?.connections?.new == 0)
    }

    @Test func aSelfSignedNginxIsRefusedEveryTimeAndAcceptedWithInsecure() async throws {
        let directory = try TemporaryDirectory()
        let certificate = try await OpenSSLCertificates(directory: directory).selfSigned("server", for: ["127.0.0.1"])
        let server = try await NginxServer.start(
            certificate: certificate.certificate, key: certificate.key, questions: NginxServer.numberedQuestions(3))
        let planPath = try directory.write("real.plan", plan("https://127.0.0.1:\(server.port)"))

        let refused = try ChildProcess(surveyBot: ["run", planPath, "--out", "\(directory.path)/refused", "--quiet"])
        #expect(
            await refused.wait(seconds: 60) == 1,
            "no thresholds, none completed: the implicit survey.completion_rate > 0 failed\n\(refused.standardError)")
        let refusedReport = try RunReport.read(path: "\(directory.path)/refused/real-latest.json")
        let questions = try #require(refusedReport.stepReports["questions"])
        // Not retried (a certificate failure is not transient), so one attempt per respondent.
        #expect(questions.errors == ["tls_certificate": 12])
        #expect(questions.errorSamples == ["tls_certificate": "self-signed certificate"])
        #expect(refusedReport.respondents.abandoned == 12)
        #expect(server.requests.isEmpty, "no request got past the handshake")

        let accepted = try ChildProcess(surveyBot: ["run", planPath, "--out", "\(directory.path)/accepted", "--quiet", "--insecure"])
        #expect(await accepted.wait(seconds: 60) == 0, "\(accepted.standardError)")
        #expect(accepted.standardError.contains("warning: TLS certificates are not verified"))
        let acceptedReport = try RunReport.read(path: "\(directory.path)/accepted/real-latest.json")
        #expect(acceptedReport.plan.insecure)
        #expect(acceptedReport.respondents.completed == 12)
        #expect(acceptedReport.stepReports["submit"]?.attempts == 36)
        #expect(acceptedReport.stepReports["submit"]?.errors.isEmpty == true)
        server.stop()
    }

    /// s_server answers `GET` with its status page, not the survey API; these runs end at the
    /// handshake, before it matters. OpenSSL 3.0 allows a TLS 1.0 server only at security level
    /// 0 (it signs with SHA-1), hence `-cipher DEFAULT@SECLEVEL=0`.
    @Test func openSSLServersRefusedForTheirCertificateOrVersionAreReportedWithTheReason() async throws {
        let directory = try TemporaryDirectory()
        let certificates = OpenSSLCertificates(directory: directory)
        let authority = try await certificates.makeAuthority()
        let expired = try await certificates.issue("expired", for: ["127.0.0.1"], days: -1, by: authority)
        let current = try await certificates.issue("current", for: ["127.0.0.1"], days: 2, by: authority)
        let cases: [(certificate: (certificate: String, key: String), options: [String], kind: String, reason: String)] = [
            (expired, [], "tls_certificate", "certificate has expired"),
            (current, ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"], "tls_handshake", "tlsv1 alert protocol version"),
        ]
        for (index, (certificate, options, kind, reason)) in cases.enumerated() {
            let server = try await OpenSSLServer.start(certificate: certificate.certificate, key: certificate.key, options: options)
            let planPath = try directory.write(
                "real.plan", plan("https://127.0.0.1:\(server.port)", extra: "tls:\n  ca_file: \(authority.certificate)\n"))
            let run = try ChildProcess(surveyBot: ["run", planPath, "--out", "\(directory.path)/\(index)", "--quiet"])
            let status = await run.wait(seconds: 60)
            server.stop()
            #expect(status == 1, "none completed: \(run.standardError)")
            let report = try RunReport.read(path: "\(directory.path)/\(index)/real-latest.json")
            let questions = try #require(report.stepReports["questions"])
            #expect(questions.errors == [kind: 12], "\(reason)")
            #expect(questions.errorSamples == [kind: reason])
            #expect(report.respondents.abandoned == 12)
        }
    }

    /// A real server that never answers a ClientHello: s_server stopped with SIGSTOP, whose
    /// kernel still completes the TCP connections into its listen queue.
    @Test func aServerThatNeverFinishesTheHandshakeTimesEveryAttemptOutAfterTheTimeout() async throws {
        let directory = try TemporaryDirectory()
        let certificate = try await OpenSSLCertificates(directory: directory).selfSigned("server", for: ["127.0.0.1"])
        let server = try await OpenSSLServer.start(certificate: certificate.certificate, key: certificate.key)
        server.signal(SIGSTOP)
        let planPath = try directory.write(
            "real.plan",
            plan("https://127.0.0.1:\(server.port)", respondents: 4, extra: "timeout: 300ms\nretry:\n  questions:\n    attempts: 1\n")
                + "\ntls:\n  verify: false\n")
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        server.stop()
        #expect(status == 1, "none completed: \(run.standardError)")
        let report = try RunReport.read(path: "\(directory.path)/real-latest.json")
        let questions = try #require(report.stepReports["questions"])
        #expect(questions.errors == ["timeout": 4])
        #expect(questions.errorSamples == nil)
        #expect(report.respondents.abandoned == 4)
        // Each attempt waited out its 300 ms, never less: its time to fail, not a latency, as none
        // succeeded. How much later its loop got to it depends on the machine's load, so no upper
        // bound is claimed: the kind says the timeout ended it.
        #expect(questions.correctedLatencyMs == nil && questions.serviceTimeMs == nil)
        let timeToFail = try #require(questions.failedLatencyMs)
        #expect(timeToFail.min >= 300)
        #expect(questions.connections?.new == 4)
        #expect(questions.connections?.tls == nil, "no handshake finished")
    }
}
