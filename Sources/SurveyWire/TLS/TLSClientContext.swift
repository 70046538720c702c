import CTLS

/// The client side of TLS for one run: OpenSSL's `SSL_CTX`, configured once from a
/// `TLSConfiguration` and shared by every event-loop thread (OpenSSL ≥ 1.1 allows that once the
/// context is set up; each connection's `TLSConnection` stays on its own loop).
///
/// Every connection offers the ALPN protocols it was made with (`http/1.1` unless told) and TLS
/// 1.2 at least, and releases its ~34 KB of buffers while idle.
public final class TLSClientContext: @unchecked Sendable {
    /// What the context was made from.
    public let configuration: TLSConfiguration
    /// The `SSL_CTX`; never changed after `init`, freed by `deinit`.
    let pointer: OpaquePointer

    /// The protocols its connections offer by ALPN, preferred first.
    let applicationProtocols: [String]

    /// Makes the context from the configuration's PEM texts; its connections offer
    /// `applicationProtocols` by ALPN.
    ///
    /// - Throws: `TLSSetupError` naming what and why when a trusted certificate, the client
    ///   certificate or its key cannot be used, when the key does not match the certificate, or
    ///   when OpenSSL is not installed. The error names no file: whoever read one names it.
    public convenience init(_ configuration: TLSConfiguration) throws(TLSSetupError) {
        try self.init(configuration, offering: ["http/1.1"])
    }

    init(_ configuration: TLSConfiguration, offering applicationProtocols: [String]) throws(TLSSetupError) {
        if case .failure(let unavailable) = TLSLibrary.shared { throw TLSSetupError(unavailable) }
        guard let pointer = ctls_context_new(0) else {
            throw TLSSetupError("TLS context", reason: TLSSetupError.openSSLReason(or: "out of memory"))
        }
        do throws(TLSSetupError) {
            try Self.configure(pointer, configuration)
            if applicationProtocols != ["http/1.1"] {
                let wire = applicationProtocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
                guard ctls_context_set_alpn(pointer, wire, UInt32(wire.count)) != 0 else {
                    throw TLSSetupError("ALPN protocols", reason: TLSSetupError.openSSLReason(or: "out of memory"))
                }
            }
        } catch {
            ctls_context_free(pointer)
            throw error
        }
        self.configuration = configuration
        self.applicationProtocols = applicationProtocols
        self.pointer = pointer
    }

    deinit {
        ctls_context_free(pointer)
    }

    private static func configure(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(TLSSetupError) {
        guard ctls_context_set_versions(context, configuration.minimumVersion.wireValue, 0) != 0 else {
            throw TLSSetupError("minimum TLS version", reason: TLSSetupError.openSSLReason(or: "not supported by this OpenSSL"))
        }
        if configuration.verify {
            ctls_context_set_verify(context, 1)  // SSL_VERIFY_PEER
            try trust(context, configuration)
        } else {
            ctls_context_set_verify(context, 0)
        }
        switch (configuration.clientCertificateChainPEM, configuration.clientPrivateKeyPEM) {
        case (nil, nil):
            break
        case (_?, nil):
            throw TLSSetupError("client certificate", reason: "no client key given for it")
        case (nil, _?):
            throw TLSSetupError("client key", reason: "no client certificate given for it")
        case (let chain?, let key?):
            try TLSServerContext.use(context, chainPEM: chain, keyPEM: key, role: "client")
        }
    }

    private static func trust(_ context: OpaquePointer, _ configuration: TLSConfiguration) throws(TLSSetupError) {
        if configuration.trustedCertificates.isEmpty {
            guard ctls_context_trust_system(context) != 0 else {
                throw TLSSetupError("system certificates", reason: TLSSetupError.openSSLReason(or: "cannot be loaded"))
            }
        } else {
            try trust(context, pem: configuration.trustedCertificates, as: "trusted certificate")
        }
    }

    /// Trusts each PEM text's certificates; `subject` numbered from 1 names the one that fails.
    static func trust(_ context: OpaquePointer, pem texts: [String], as subject: String) throws(TLSSetupError) {
        for (index, text) in texts.enumerated() {
            var text = text
            let trusted = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { ctls_context_trust_pem(context, $0.baseAddress, $0.count) }
            }
            guard trusted > 0 else {
                let reason = trusted == 0 ? "no PEM certificate in it" : TLSSetupError.openSSLReason(or: "cannot be used")
                throw TLSSetupError("\(subject) \(index + 1)", reason: reason)
            }
        }
    }
}
