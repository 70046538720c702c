import CTLS

/// The server side of TLS, for the reference server: OpenSSL's `SSL_CTX` with a certificate and
/// its key, shared by every loop. It answers ALPN `http/1.1` (and `h2` for a server that speaks
/// HTTP/2) and resumes sessions.
public final class TLSServerContext: @unchecked Sendable {
    /// What a server accepts beyond its certificate.
    public struct Options: Sendable, Hashable {
        /// The oldest protocol version accepted.
        public var minimumVersion: TLSConfiguration.Version
        /// The newest protocol version offered; nil for the newest OpenSSL has.
        public var maximumVersion: TLSConfiguration.Version?
        /// When not empty, every client must present a certificate, verified against these PEM
        /// texts (`SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT`).
        public var trustedClientCertificates: [String]

        /// Options; the defaults accept TLS 1.2 and 1.3 and ask for no client certificate.
        public init(
            minimumVersion: TLSConfiguration.Version = .tls12, maximumVersion: TLSConfiguration.Version? = nil,
            trustedClientCertificates: [String] = []
        ) {
            self.minimumVersion = minimumVersion
            self.maximumVersion = maximumVersion
            self.trustedClientCertificates = trustedClientCertificates
        }
    }

    /// Whether clients must present a verified certificate.
    let requiresClientCertificate: Bool
    /// The `SSL_CTX`; never changed after `init`, freed by `deinit`.
    let pointer: OpaquePointer

    /// A server context from PEM text: the certificate chain (leaf first) and its unencrypted
    /// private key.
    ///
    /// - Throws: `TLSSetupError` ("server certificate", "server key") with OpenSSL's reason when
    ///   the text holds no certificate or key, or the key does not match the certificate. It names
    ///   no file: whoever read one names it.
    public convenience init(certificateChainPEM: String, privateKeyPEM: String, options: Options = .init()) throws(TLSSetupError) {
        try self.init(options: options) { context throws(TLSSetupError) in
            try Self.use(context, chainPEM: certificateChainPEM, keyPEM: privateKeyPEM, role: "server")
        }
    }

    /// A server context for a certificate and key made in memory.
    public convenience init(identity: TLSIdentity, options: Options = .init()) throws(TLSSetupError) {
        try self.init(options: options) { context throws(TLSSetupError) in
            guard ctls_context_use_identity(context, identity.certificate, identity.key) != 0 else {
                throw TLSSetupError("server certificate", reason: TLSSetupError.openSSLReason(or: "cannot be used"))
            }
        }
    }

    /// A context for a new self-signed certificate naming `names` (DNS names or IP literals),
    /// valid from a minute ago for a day, with the certificate as PEM for clients to trust exactly.
    ///
    /// This is what lets `builtin.tls: true` rehearse https with no set-up at all.
    public static func selfSigned(names: [String] = ["localhost", "127.0.0.1", "::1"]) throws(TLSSetupError) -> (
        context: TLSServerContext, certificatePEM: String
    ) {
        let identity = try TLSIdentity.selfSigned(names: names)
        return (try TLSServerContext(identity: identity), identity.certificatePEM)
    }

    private init(options: Options, certificate: (OpaquePointer) throws(TLSSetupError) -> Void) throws(TLSSetupError) {
        if case .failure(let unavailable) = TLSLibrary.shared { throw TLSSetupError(unavailable) }
        guard let pointer = ctls_context_new(1) else {
            throw TLSSetupError("TLS context", reason: TLSSetupError.openSSLReason(or: "out of memory"))
        }
        do throws(TLSSetupError) {
            guard ctls_context_set_versions(pointer, options.minimumVersion.wireValue, options.maximumVersion?.wireValue ?? 0) != 0 else {
                throw TLSSetupError("TLS versions", reason: TLSSetupError.openSSLReason(or: "not supported by this OpenSSL"))
            }
            try certificate(pointer)
            if !options.trustedClientCertificates.isEmpty {
                ctls_context_set_verify(pointer, 3)  // SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                try TLSClientContext.trust(pointer, pem: options.trustedClientCertificates, as: "trusted client certificate")
            }
        } catch {
            ctls_context_free(pointer)
            throw error
        }
        requiresClientCertificate = !options.trustedClientCertificates.isEmpty
        self.pointer = pointer
    }

    deinit {
        ctls_context_free(pointer)
    }

    /// Picks `h2` by ALPN when the client offers it, else `http/1.1`: for a server that speaks
    /// HTTP/2 too. Called before the first connection.
    func selectHTTP2() {
        ctls_context_select_h2(pointer)
    }

    /// Uses a certificate chain and its key, PEM texts, and checks that they belong together;
    /// `role` ("client", "server") names them in errors.
    static func use(_ context: OpaquePointer, chainPEM: String, keyPEM: String, role: String) throws(TLSSetupError) {
        guard withPEM(chainPEM, { ctls_context_use_chain_pem(context, $0, $1) }) != 0 else {
            throw TLSSetupError("\(role) certificate", reason: TLSSetupError.openSSLReason(or: "no certificate in it"))
        }
        // A key that does not match is refused as it is used, or else by the check after it.
        let used = withPEM(keyPEM, { ctls_context_use_key_pem(context, $0, $1) })
        if used < 0 { throw TLSSetupError("\(role) key", reason: "is encrypted (a key without a pass phrase is needed)") }
        guard used > 0 && ctls_context_check_key(context) != 0 else {
            let reason = TLSSetupError.openSSLReason(or: "no private key in it")
            guard reason == "key values mismatch" || used > 0 else { throw TLSSetupError("\(role) key", reason: reason) }
            throw TLSSetupError.keyMismatch("\(role) key", reason: reason)
        }
    }

    /// What `body` answers for `text`'s bytes (a pointer and a count).
    private static func withPEM(_ text: String, _ body: (UnsafePointer<CChar>?, Int) -> Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress, $0.count) } }
    }
}
