import SurveyEngine
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The `tls` keys, `--insecure` and `builtin.tls`: decoded into the engine's TLSConfiguration,
/// and their files checked when the plan is, at their keys.
@Suite struct PlanTLSTests {
    @Test func tlsKeysLandInTheClientConfiguration() throws {
        let directory = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["staging.example"])
        let ca = try directory.write("ca.pem", identity.certificatePEM)
        let (certificate, key) = try directory.write(identity, as: "client")
        let plan = try #require(
            expectPlan(
                lines(
                    "target: https://127.0.0.1:8443", "tls:", "  ca_file: \(ca)", "  client_cert: \(certificate)", "  client_key: \(key)",
                    "  server_name: staging.example", "  min_version: 1.3")))
        #expect(
            plan.run.client.tls
                == TLSConfiguration(
                    caFile: ca, clientCertificateFile: certificate, clientKeyFile: key, serverName: "staging.example",
                    minimumVersion: .tls13))
        #expect(RunReport.PlanRecord(plan).insecure == false)
    }

    @Test func aCAFileWithoutACertificateIsAnErrorAtItsKey() throws {
        let directory = try TemporaryDirectory()
        let garbage = try directory.write("ca.pem", "hello\n")
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  ca_file: \(garbage)"), line: 3, column: 12, contains: "CA file \(garbage): ")
    }

    @Test func aMissingClientKeyFileIsNamed() throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("client.pem", try TLSIdentity.selfSigned(names: ["x"]).certificatePEM)
        let missing = directory.path + "/nope.key"
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(certificate)", "  client_key: \(missing)"), line: 4,
            column: 15, contains: "\(missing): No such file or directory")
    }

    @Test func aKeyThatDoesNotFitItsCertificateIsAnError() throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("client.pem", try TLSIdentity.selfSigned(names: ["a"]).certificatePEM)
        let key = try directory.write("other.key", try TLSIdentity.selfSigned(names: ["b"]).privateKeyPEM)
        let diagnostics = expectErrors(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(certificate)", "  client_key: \(key)"))
        #expect(diagnostics.count == 1)
        #expect(diagnostics.first?.message.contains("does not match") == true, "\(diagnostics)")
    }

    @Test(arguments: ["staging\u{0}.example", "staging.example\r\nX: y", "two words", "bad\u{1B}[31m"])
    func aServerNameThatIsNoHostIsRefusedAtItsKey(_ name: String) {
        // OpenSSL takes SNI as a C string: a NUL would silently cut the name the certificate is
        // checked against. Control characters and spaces are no host's either. They arrive from
        // the environment (a plan file cannot hold them), and the error shows ${SNI}.
        let diagnostics = expectErrors(
            lines("target: https://127.0.0.1:8443", "tls:", "  server_name: ${SNI}"), environment: ["SNI": name])
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.location.line == 3, "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("${SNI}") == true, "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("staging") != true, "the value is not shown: \(diagnostics)")
    }

    @Test func tlsFilesAreNotReadForAnHTTPTarget() {
        #expect(expectPlan(lines("target: http://127.0.0.1:8080", "tls:", "  ca_file: /nowhere/ca.pem")) != nil)
    }

    @Test func insecureTurnsVerificationOffAndIsRecorded() throws {
        var overrides = PlanOverrides()
        overrides.set("tls.verify", to: "false", option: "--insecure", spelling: "--insecure")
        let plan = try #require(expectPlan(lines("target: https://127.0.0.1:8443"), overrides: overrides))
        #expect(plan.run.client.tls.verify == false)
        #expect(RunReport.PlanRecord(plan).insecure == true)
    }

    @Test func insecureIsAnOptionOfRunAndValidate() throws {
        let arguments = try #require(
            {
                if case .arguments(let parsed) = try ArgumentParser(spec: ValidateCommand.spec).parse(["p.plan", "--insecure"]) {
                    return parsed
                }
                return nil
            }())
        let overrides = try PlanOptions.overrides(from: arguments)
        #expect(overrides.overrides.map(\.path) == [["tls", "verify"]])
        #expect(RunCommand.spec.options.contains { $0.name == "insecure" })
    }

    @Test func builtinTLSMakesTheBuiltinServerSpeakHTTPS() throws {
        let plan = try #require(expectPlan(lines("builtin:", "  tls: true")))
        #expect(plan.builtin.tls == .selfSigned)
        #expect(try #require(expectPlan("")).builtin.tls == .off)
    }
}
