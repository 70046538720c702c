import Testing

@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

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

    @Test func keyNotMatchingTheCertificateIsRefusedAndNamedByWhoeverReadItsFile() throws {
        let certificate = try TLSIdentity.selfSigned(names: ["a"]).certificatePEM
        let key = try TLSIdentity.selfSigned(names: ["b"]).privateKeyPEM
        let error = try setupError(TLSConfiguration(clientCertificateChainPEM: certificate, clientPrivateKeyPEM: key))
        #expect(error.subject == "client key")
        #expect(error.file == nil, "the engine reads no files")
        #expect(error.description == "client key: does not match the certificate (key values mismatch)")
        let named = error.naming(file: "/x/k.pem", certificateFile: "/x/c.pem")
        #expect(named.file == "/x/k.pem")
        #expect(named.description == "client key /x/k.pem: does not match the certificate /x/c.pem (key values mismatch)")
    }

    @Test func textWithoutACertificateIsRefusedAsATrustedCertificate() throws {
        let error = try setupError(TLSConfiguration(trustedCertificates: ["this is not a certificate\n"]))
        #expect(error == TLSSetupError("trusted certificate 1", reason: "no PEM certificate in it"))
        #expect(try setupError(TLSConfiguration(trustedCertificates: [""])).reason == "no PEM certificate in it")
        // The caller that read it from a file names the file, and what it was.
        #expect(error.naming(file: "/x/ca.pem", as: "CA file").description == "CA file /x/ca.pem: no PEM certificate in it")
    }

    @Test func aBrokenCertificateAfterAGoodOneIsRefusedNotHalfTrusted() throws {
        let good = try TLSIdentity.selfSigned(names: ["localhost"]).certificatePEM
        let broken = try TLSIdentity.selfSigned(names: ["localhost"]).certificatePEM.replacingOccurrences(of: "\nMII", with: "\nMXX")
        let error = try setupError(TLSConfiguration(trustedCertificates: [good + broken]))
        #expect(error.subject == "trusted certificate 1")
        #expect(error.reason != "no PEM certificate in it" && !error.reason.isEmpty, "OpenSSL's reason: \(error)")
        // Certificates among other PEM blocks and text are trusted, the rest skipped.
        _ = try TLSClientContext(
            TLSConfiguration(trustedCertificates: ["a comment\n" + good + TLSIdentity.selfSigned(names: ["x"]).privateKeyPEM]))
    }

    @Test func invalidClientPEMIsRefusedWithOpenSSLsReason() throws {
        let identity = try TLSIdentity.selfSigned(names: ["client"])
        let (certificate, key) = (identity.certificatePEM, identity.privateKeyPEM)
        let garbage = "garbage\n"
        #expect(
            try setupError(TLSConfiguration(clientCertificateChainPEM: garbage, clientPrivateKeyPEM: key))
                == TLSSetupError("client certificate", reason: "no start line"))
        let badKey = try setupError(TLSConfiguration(clientCertificateChainPEM: certificate, clientPrivateKeyPEM: garbage))
        #expect(badKey.subject == "client key")
        #expect(!badKey.reason.contains("does not match"), "\(badKey)")
        // A certificate where the key should be holds no key.
        #expect(
            try setupError(TLSConfiguration(clientCertificateChainPEM: certificate, clientPrivateKeyPEM: certificate)).subject
                == "client key")
        #expect(
            try setupError(TLSConfiguration(clientCertificateChainPEM: certificate))
                == TLSSetupError("client certificate", reason: "no client key given for it"))
        #expect(
            try setupError(TLSConfiguration(clientPrivateKeyPEM: key))
                == TLSSetupError("client key", reason: "no client certificate given for it"))
        // One text with both, as some servers keep them, serves as either.
        #expect(
            try TLSClientContext(TLSConfiguration(clientCertificateChainPEM: certificate + key, clientPrivateKeyPEM: key + certificate))
                .configuration.verify)
    }

    /// OpenSSL's default pass phrase callback would prompt on the terminal, in `validate`.
    @Test func anEncryptedKeyIsRefusedWithoutAskingForAPassPhrase() throws {
        let certificate = try TLSIdentity.selfSigned(names: ["client"]).certificatePEM
        let error = try setupError(TLSConfiguration(clientCertificateChainPEM: certificate, clientPrivateKeyPEM: encryptedKey))
        #expect(error == TLSSetupError("client key", reason: "is encrypted (a key without a pass phrase is needed)"))
    }

    @Test func trustedCertificateThatIsNotPEMIsRefused() throws {
        let good = try TLSIdentity.selfSigned(names: ["localhost"]).certificatePEM
        let error = try setupError(TLSConfiguration(trustedCertificates: [good, "not a certificate"]))
        #expect(error.description == "trusted certificate 2: no PEM certificate in it")
    }

    @Test func serverPEMIsCheckedLikeTheClients() throws {
        let identity = try TLSIdentity.selfSigned(names: ["localhost"])
        let otherKey = try TLSIdentity.selfSigned(names: ["x"]).privateKeyPEM
        let server = try TLSServerContext(certificateChainPEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        let pair = try TLSPair(client: try TLSFixtures.client(trusting: [identity]), server: server)
        #expect(pair.handshake() == (.done, .done))
        #expect {
            try TLSServerContext(certificateChainPEM: identity.certificatePEM, privateKeyPEM: otherKey)
        } throws: { error in
            "\(error)" == "server key: does not match the certificate (key values mismatch)"
        }
        #expect {
            try TLSServerContext(certificateChainPEM: "", privateKeyPEM: identity.privateKeyPEM)
        } throws: { error in
            "\(error)" == "server certificate: no start line"
        }
    }

    /// The certificates after the leaf are sent with it: a client that trusts only the root
    /// verifies a leaf its intermediate issued, and a server the same of a client's chain.
    @Test func theRestOfAChainIsSentWithTheLeaf() throws {
        let root = try TLSIdentity(names: ["Survey Root CA"], isAuthority: true)
        let intermediate = try TLSIdentity(names: ["Survey Intermediate CA"], issuer: root, isAuthority: true)
        let leaf = try TLSIdentity(names: ["localhost"], issuer: intermediate)
        let client = try TLSClientContext(TLSConfiguration(trustedCertificates: [root.certificatePEM]))
        let chained = try TLSServerContext(
            certificateChainPEM: leaf.certificatePEM + intermediate.certificatePEM, privateKeyPEM: leaf.privateKeyPEM)
        #expect(try TLSPair(client: client, server: chained).handshake() == (.done, .done))
        let alone = try TLSServerContext(certificateChainPEM: leaf.certificatePEM, privateKeyPEM: leaf.privateKeyPEM)
        #expect(
            try TLSPair(client: client, server: alone).handshake().client
                == .failed(TLSFailure(.certificate, reason: "unable to get local issuer certificate")))

        let respondent = try TLSIdentity(names: ["respondent"], issuer: intermediate)
        let strict = try TLSServerContext(
            certificateChainPEM: leaf.certificatePEM + intermediate.certificatePEM, privateKeyPEM: leaf.privateKeyPEM,
            options: .init(trustedClientCertificates: [root.certificatePEM]))
        let presenting = try TLSClientContext(
            TLSConfiguration(
                trustedCertificates: [root.certificatePEM],
                clientCertificateChainPEM: respondent.certificatePEM + intermediate.certificatePEM,
                clientPrivateKeyPEM: respondent.privateKeyPEM))
        let pair = try TLSPair(client: presenting, server: strict)
        #expect(pair.handshake() == (.done, .done))
        #expect(pair.server.peerPresentedCertificate)
        let leafOnly = try TLSClientContext(
            TLSConfiguration(
                trustedCertificates: [root.certificatePEM], clientCertificateChainPEM: respondent.certificatePEM,
                clientPrivateKeyPEM: respondent.privateKeyPEM))
        #expect(
            try TLSPair(client: leafOnly, server: strict).handshake().server
                == .failed(TLSFailure(.certificate, reason: "unable to get local issuer certificate")))
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

/// A P-256 key encrypted with the pass phrase "secret" (`openssl pkcs8 -topk8 -v2 aes-256-cbc`).
private let encryptedKey = """
    -----BEGIN ENCRYPTED PRIVATE KEY-----
    MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAjnwdREasfmTQICCAAw
    DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEB7UKP4GLFoDCe033PLXffwEgZBD
    kGQPvb1fg3ptFt+fx0YqSfW66UKuYcruDka5Ay+W4SgVYKnGyO5zfxQycHJmXJAh
    yGCiL5qTcuUVvyIicWZmCkqQIINnzmIjFvQC//o8wr5FF8Z24HmmYsnl9mf1DuZm
    h3Tkf6sXCwTeU1cUhGa8yT8Rpte1g1wXY6axmPnwgmM59SCo8itrPFWEbEmk5A4=
    -----END ENCRYPTED PRIVATE KEY-----

    """
