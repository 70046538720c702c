import Foundation
import SurveyEngine
import SurveyWire
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

private let plan = """
    name: secure
    respondents: 12
    concurrency: 4
    seed: 5
    answers:
      "*": yes
    """

/// The real executable over https: `serve` with a certificate from files, runs that trust its
/// CA, or not, or anything; and `builtin.tls`, https with no set-up.
@Suite struct HTTPSEndToEndTests {
    @Test func aRunTrustingThePrivateCAReportsEveryAttemptAndTheServerAgrees() async throws {
        let directory = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["127.0.0.1"])
        let (certificate, key) = try directory.write(identity, as: "server")
        let (server, url) = try await startServer(["--tls-cert", certificate, "--tls-key", key, "--questions", "4"])
        #expect(url.hasPrefix("https://127.0.0.1:"))
        let planPath = try directory.write("secure.plan", plan + "\ntarget: \(url)\ntls:\n  ca_file: \(certificate)\n")
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        let stats = try await fetchStats(url, tls: TLSConfiguration(trustedCertificates: [identity.certificatePEM]))
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
        #expect(status == 0, "\(run.standardError)")
        let report = try RunReport.read(path: "\(directory.path)/secure-latest.json")
        #expect(report.respondents.completed == 12)
        #expect(report.stepReports["submit"]?.attempts == 48)
        #expect(report.stepReports["submit"]?.attempts == stats.requests("submit"))
        #expect(report.stepReports["questions"]?.attempts == stats.requests("questions"))
        let connections = try #require(report.stepReports["questions"]?.connections)
        #expect(connections.tls?.keys.allSatisfy { $0.hasPrefix("TLSv1.3 ") } == true)
        #expect(connections.tlsHandshakeMs != nil)
    }

    @Test func anUntrustedCertificateFailsEveryAttemptAsACertificateFailureWithoutRetries() async throws {
        let directory = try TemporaryDirectory()
        let (server, url) = try await startServer(["--tls-self-signed"])
        let planPath = try directory.write("secure.plan", plan + "\ntarget: \(url)\n")
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet"])
        let status = await run.wait(seconds: 60)
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
        let report = try RunReport.read(path: "\(directory.path)/secure-latest.json")
        let questions = try #require(report.stepReports["questions"])
        // One attempt each: a certificate failure is not transient, so the default policy does not retry it.
        #expect(questions.attempts == 12)
        #expect(questions.errors == ["tls_certificate": 12])
        #expect(questions.errorSamples == ["tls_certificate": "self-signed certificate"])
        #expect(report.respondents.abandoned == 12)
        #expect(status == 1, "no thresholds, and none completed: the implicit survey.completion_rate > 0 failed")
    }

    @Test func insecureAcceptsTheCertificateAndWarns() async throws {
        let directory = try TemporaryDirectory()
        let (server, url) = try await startServer(["--tls-self-signed"])
        let planPath = try directory.write("secure.plan", plan + "\ntarget: \(url)\n")
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path, "--quiet", "--insecure"])
        let status = await run.wait(seconds: 60)
        server.signal(SIGTERM)
        #expect(await server.wait() == 0)
        #expect(status == 0)
        #expect(run.standardError.contains("warning: TLS certificates are not verified"))
        let report = try RunReport.read(path: "\(directory.path)/secure-latest.json")
        #expect(report.respondents.completed == 12)
        #expect(report.plan.insecure)
    }

    @Test func builtinTLSRehearsesHTTPSWithNoSetUp() async throws {
        let directory = try TemporaryDirectory()
        let planPath = try directory.write("secure.plan", plan + "\nbuiltin:\n  tls: true\n  questions: 3\n")
        let run = try ChildProcess(surveyBot: ["run", planPath, "--out", directory.path])
        let status = await run.wait(seconds: 60)
        #expect(status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("builtin server at https://127.0.0.1:"))
        let report = try RunReport.read(path: "\(directory.path)/secure-latest.json")
        #expect(report.respondents.completed == 12)
        #expect(report.stepReports["submit"]?.errors.isEmpty == true)
        // Each respondent opens its connection for the questions and keeps it for its submits.
        #expect(report.stepReports["questions"]?.connections?.tls != nil)
        #expect(report.stepReports["submit"]?.connections?.new == 0)
    }

    @Test func serveRefusesAKeyThatDoesNotFitItsCertificate() async throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("server.pem", try TLSIdentity.selfSigned(names: ["a"]).certificatePEM)
        let key = try directory.write("other.key", try TLSIdentity.selfSigned(names: ["b"]).privateKeyPEM)
        let serve = try ChildProcess(surveyBot: ["serve", "--port", "0", "--tls-cert", certificate, "--tls-key", key])
        #expect(await serve.wait(seconds: 20) == 2)
        #expect(serve.standardError.contains("does not match"), "\(serve.standardError)")
    }
}
