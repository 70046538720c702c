import Foundation
import SurveyEngine
import SurveyWire
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The `tls` keys, `--insecure` and `builtin.tls`: the files kept as paths in the plan and read
/// into the engine's TLSConfiguration when the plan is checked, their errors at their keys.
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
        #expect(plan.tlsFiles == TLSFiles(caFile: ca, clientCertificate: certificate, clientKey: key))
        // The engine gets the files' text, not their paths.
        #expect(
            plan.run.client.tls
                == TLSConfiguration(
                    trustedCertificates: [identity.certificatePEM], clientCertificateChainPEM: identity.certificatePEM,
                    clientPrivateKeyPEM: identity.privateKeyPEM, serverName: "staging.example", minimumVersion: .tls13))
        #expect(RunReport.PlanRecord(plan).insecure == false)
        // The digest shows the paths, as written.
        let digested = Dictionary(uniqueKeysWithValues: plan.canonicalEntries.map { ($0.key, $0.value) })
        #expect(digested["tls.ca_file"] == ca)
        #expect(digested["tls.client_cert"] == certificate)
        #expect(digested["tls.client_key"] == key)
    }

    @Test func aCAFileWithoutACertificateIsAnErrorAtItsKey() throws {
        let directory = try TemporaryDirectory()
        let garbage = try directory.write("ca.pem", "hello\n")
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  ca_file: \(garbage)"), line: 3, column: 12,
            contains: "CA file \(garbage): no PEM certificate in it")
    }

    /// What is not a regular file is refused before it is opened (a FIFO would wait for a writer
    /// forever), by the one check every file survey-bot reads goes through, at the key.
    @Test func aFIFOADirectoryOrAMissingFileIsRefusedAsACAFileAtItsKey() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.missing("ca.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let missing = directory.missing("absent.pem")
        let cases = [
            (fifo, "CA file \(fifo): is a FIFO, not a file"), (directory.path, "CA file \(directory.path): is a directory"),
            (missing, "CA file \(missing): no such file or directory"), ("/dev/null", "CA file /dev/null: is a device, not a file"),
        ]
        for (path, message) in cases {
            let diagnostics = expectErrors(lines("target: https://127.0.0.1:8443", "tls:", "  ca_file: \(path)"))
            #expect(diagnostics.map(\.message) == [message])
            #expect(diagnostics.first.map { [$0.location.line, $0.location.column] } == [3, 12], "\(diagnostics)")
        }
    }

    @Test func aFIFOOrADirectoryIsRefusedAsAClientCertificateOrKeyAtItsKey() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.missing("client.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let (certificate, key) = try directory.write(try TLSIdentity.selfSigned(names: ["x"]), as: "client")
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(fifo)", "  client_key: \(key)"), line: 3, column: 16,
            contains: "client certificate \(fifo): is a FIFO, not a file")
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(certificate)", "  client_key: \(directory.path)"), line: 4,
            column: 15, contains: "client key \(directory.path): is a directory")
    }

    @Test func aFileWithoutACertificateIsNamedAsTheClientCertificate() throws {
        let directory = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["x"])
        let keyOnly = try directory.write("key.pem", identity.privateKeyPEM)
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(keyOnly)", "  client_key: \(keyOnly)"), line: 3, column: 16,
            contains: "client certificate \(keyOnly): no start line")
    }

    @Test func aCAFileIsNotReadWhenNothingIsVerified() {
        #expect(expectPlan(lines("target: https://127.0.0.1:8443", "tls:", "  verify: false", "  ca_file: /nowhere/ca.pem")) != nil)
    }

    @Test func aMissingClientKeyFileIsNamed() throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("client.pem", try TLSIdentity.selfSigned(names: ["x"]).certificatePEM)
        let missing = directory.path + "/nope.key"
        expectSingleError(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(certificate)", "  client_key: \(missing)"), line: 4,
            column: 15, contains: "client key \(missing): no such file or directory")
    }

    @Test func aKeyThatDoesNotFitItsCertificateIsAnError() throws {
        let directory = try TemporaryDirectory()
        let certificate = try directory.write("client.pem", try TLSIdentity.selfSigned(names: ["a"]).certificatePEM)
        let key = try directory.write("other.key", try TLSIdentity.selfSigned(names: ["b"]).privateKeyPEM)
        let diagnostics = expectErrors(
            lines("target: https://127.0.0.1:8443", "tls:", "  client_cert: \(certificate)", "  client_key: \(key)"))
        #expect(diagnostics.map(\.message) == ["client key \(key): does not match the certificate \(certificate) (key values mismatch)"])
        #expect(diagnostics.first.map { [$0.location.line, $0.location.column] } == [4, 15], "\(diagnostics)")
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

/// One rule for every file a plan reads: a relative path is the plan file's directory's, as
/// `data:` is, wherever survey-bot runs from; a path given with `--set` is the working
/// directory's. Errors say where they looked.
@Suite struct PlanPathsTests {
    @Test func filesBesideThePlanAreFoundFromAnyWorkingDirectory() throws {
        let directory = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["staging.example"])
        _ = try directory.write("ca.pem", identity.certificatePEM)
        _ = try directory.write("client.pem", identity.certificatePEM)
        _ = try directory.write("client.key", identity.privateKeyPEM)
        _ = try directory.write("questions.json", #"[{"id": 1, "question": "Colour?"}]"#)
        let text = lines(
            "target: https://127.0.0.1:8443", "tls:", "  ca_file: ca.pem", "  client_cert: client.pem", "  client_key: client.key")
        // Loaded as the file it is, from a working directory that is not its own.
        let plan = try PlanLoader(environment: [:]).load(text: text, path: directory.path + "/p.plan").get()
        #expect(plan.run.client.tls.trustedCertificates == [identity.certificatePEM])
        #expect(plan.run.client.tls.clientPrivateKeyPEM == identity.privateKeyPEM)
        // Shown and digested as written.
        #expect(Dictionary(uniqueKeysWithValues: plan.canonicalEntries.map { ($0.key, $0.value) })["tls.ca_file"] == "ca.pem")
        let builtin = try PlanLoader(environment: [:]).load(
            text: lines("builtin:", "  questions_file: questions.json", "answers:", "  \"*\": x"), path: directory.path + "/b.plan"
        ).get()
        #expect(builtin.builtin.questions == .file(directory.path + "/questions.json"))
        #expect(builtin.shownPath(directory.path + "/questions.json") == "questions.json")
        #expect(
            Dictionary(uniqueKeysWithValues: builtin.canonicalEntries.map { ($0.key, $0.value) })["builtin.questions_file"]
                == "questions.json")
    }

    @Test func aFileThatIsNotBesideThePlanSaysWhereItWasLookedFor() throws {
        let directory = try TemporaryDirectory()
        let plan = directory.path + "/p.plan"
        let tls = PlanLoader(environment: [:]).load(text: lines("target: https://127.0.0.1:8443", "tls:", "  ca_file: ca.pem"), path: plan)
        guard case .failure(let errors) = tls else {
            Issue.record("a missing CA file was accepted")
            return
        }
        #expect(errors.diagnostics.map(\.message) == ["CA file \(directory.path)/ca.pem: no such file or directory"])
        let questions = PlanLoader(environment: [:]).load(text: lines("builtin:", "  questions_file: q.json"), path: plan)
        guard case .failure(let errors) = questions else {
            Issue.record("a missing questions file was accepted")
            return
        }
        #expect(
            errors.diagnostics.map(\.message) == [
                "cannot read builtin.questions_file q.json (looked for \(directory.path)/q.json): no such file or directory"
            ])
    }
}
