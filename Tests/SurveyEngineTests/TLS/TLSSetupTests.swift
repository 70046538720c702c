import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport

/// Loading OpenSSL, and the setup errors that stop a run before anything is sent.
@Suite struct TLSSetupTests {
    @Test func loadsTheSystemsLibSSL() throws {
        let library = try TLSLibrary.shared.get()
        #expect(["libssl.so.3", "libssl.so.1.1"].contains(library.fileName))
        #expect(library.version.hasPrefix("OpenSSL "))
        #expect(library.versionNumber >= 0x1010_0000)
    }

    @Test func missingLibraryErrorNamesTheLibrariesTriedAndWhy() throws {
        let unavailable = try #require(TLSLibrary.probe(["libssl-absent.so.9", "libssl-absent.so.8"]))
        #expect(
            unavailable.description
                == "https needs OpenSSL's libssl (tried libssl-absent.so.9, libssl-absent.so.8): "
                + "libssl-absent.so.9: cannot open shared object file: No such file or directory; "
                + "libssl-absent.so.8: cannot open shared object file: No such file or directory")
    }

    @Test func libraryWithoutAFunctionIsNamedWithTheFunction() throws {
        let unavailable = try #require(TLSLibrary.probe(["libssl-absent.so.9", "libc.so.6"]))
        #expect(unavailable.description == "https needs OpenSSL's libssl, but libc.so.6 has no function OpenSSL_version_num")
        #expect(TLSLibrary.probe(["libssl-absent.so.9", try TLSLibrary.shared.get().fileName]) == nil)
    }

    @Test func keyNotMatchingTheCertificateNamesTheKeyFile() throws {
        let files = try TemporaryDirectory()
        let certificate = try files.write("client.pem", try TLSIdentity.selfSigned(names: ["a"]).certificatePEM)
        let key = try files.write("other.key", try TLSIdentity.selfSigned(names: ["b"]).privateKeyPEM)
        let error = try setupError(TLSConfiguration(clientCertificateFile: certificate, clientKeyFile: key))
        #expect(error.file == key)
        #expect(error.description == "client key \(key): does not match the certificate \(certificate) (key values mismatch)")
    }

    @Test func missingCAFileNamesTheFile() throws {
        let files = try TemporaryDirectory()
        let path = files.missing("ca.pem")
        let error = try setupError(TLSConfiguration(caFile: path))
        #expect(error == TLSSetupError("CA file", file: path, reason: "No such file or directory"))
        #expect(error.description == "CA file \(path): No such file or directory")
    }

    @Test func garbageCAFileNamesTheFileAndOpenSSLsReason() throws {
        let files = try TemporaryDirectory()
        let path = try files.write("ca.pem", "this is not a certificate\n")
        let error = try setupError(TLSConfiguration(caFile: path))
        #expect(error.subject == "CA file")
        #expect(error.file == path)
        #expect(error.reason == "no certificate or crl found")
    }

    @Test func unreadableOrInvalidClientFilesNameTheFile() throws {
        let files = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["client"])
        let (certificate, key) = try files.write(identity, as: "client")
        let garbage = try files.write("garbage.pem", "garbage\n")
        let absent = files.missing("absent.pem")
        #expect(try setupError(TLSConfiguration(clientCertificateFile: absent, clientKeyFile: key)).file == absent)
        #expect(try setupError(TLSConfiguration(clientCertificateFile: certificate, clientKeyFile: absent)).file == absent)
        #expect(try setupError(TLSConfiguration(clientCertificateFile: garbage, clientKeyFile: key)).subject == "client certificate")
        #expect(try setupError(TLSConfiguration(clientCertificateFile: certificate, clientKeyFile: garbage)).subject == "client key")
        #expect(try setupError(TLSConfiguration(clientCertificateFile: certificate)).reason == "no client key given for it")
        #expect(try TLSClientContext(TLSConfiguration(clientCertificateFile: certificate, clientKeyFile: key)).configuration.verify)
    }

    @Test func trustedCertificateThatIsNotPEMIsRefused() throws {
        let good = try TLSIdentity.selfSigned(names: ["localhost"]).certificatePEM
        let error = try setupError(TLSConfiguration(trustedCertificates: [good, "not a certificate"]))
        #expect(error.description == "trusted certificate 2: no PEM certificate in it")
    }

    @Test func serverFilesAreCheckedLikeTheClients() throws {
        let files = try TemporaryDirectory()
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let (certificate, key) = try files.write(identity, as: "server")
        let otherKey = try files.write("other.key", try TLSIdentity.selfSigned(names: ["x"]).privateKeyPEM)
        let server = try TLSServerContext(certificateChainFile: certificate, privateKeyFile: key)
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: server)
        #expect(pair.handshake() == (.done, .done))
        #expect(throws: TLSSetupError.self) { try TLSServerContext(certificateChainFile: certificate, privateKeyFile: otherKey) }
    }

    private func setupError(_ configuration: TLSConfiguration, sourceLocation: SourceLocation = #_sourceLocation) throws -> TLSSetupError {
        do {
            _ = try TLSClientContext(configuration)
        } catch {
            return error
        }
        Issue.record("the context was made", sourceLocation: sourceLocation)
        throw TLSSetupError("", reason: "no error")
    }
}
