import CTLS

#if canImport(Glibc)
    import Glibc
#endif

/// A certificate and its private key made in memory: a P-256 key and an X.509 v3 certificate
/// signed with SHA-256, naming DNS names and IP addresses in its subjectAltName.
///
/// P-256 rather than RSA because its key is made through functions both OpenSSL 1.1 and 3.x
/// export (`EVP_PKEY_CTX_ctrl`, what 1.1's curve-setting macro expands to), in well under a
/// millisecond; an RSA 2048 key takes tens.
public final class TLSIdentity: @unchecked Sendable {
    /// The certificate as PEM text, for clients to trust exactly it.
    public let certificatePEM: String
    /// The private key as unencrypted PEM text (PKCS #8), for servers that read key files.
    public let privateKeyPEM: String
    /// The `X509`; immutable after `init`, freed by `deinit`.
    let certificate: OpaquePointer
    /// The `EVP_PKEY`; immutable after `init`, freed by `deinit`.
    let key: OpaquePointer

    /// A self-signed certificate for `names` (DNS names and IP literals; the first is also the
    /// subject's common name), valid from `notBefore` to `notAfter`, both relative to now.
    ///
    /// The defaults cover a run: from a minute ago (clocks differ a little) to a day from now.
    public static func selfSigned(
        names: [String], notBefore: Duration = .seconds(-60), notAfter: Duration = .seconds(86_400)
    ) throws(TLSSetupError) -> TLSIdentity {
        try TLSIdentity(names: names, notBefore: notBefore, notAfter: notAfter)
    }

    /// A certificate for `names`, signed by `issuer` (self-signed when nil); `isAuthority` makes
    /// it a CA that may sign others. Validity bounds are relative to now, to the second.
    init(
        names: [String], notBefore: Duration = .seconds(-60), notAfter: Duration = .seconds(86_400), issuer: TLSIdentity? = nil,
        isAuthority: Bool = false
    ) throws(TLSSetupError) {
        if case .failure(let unavailable) = TLSLibrary.shared { throw TLSSetupError(unavailable) }
        guard let first = names.first else { throw TLSSetupError("certificate", reason: "no name to certify") }
        var entries: [String] = []
        for name in names {
            guard !name.isEmpty, !name.contains(","), name.utf8.count < 254 else {
                throw TLSSetupError("certificate", reason: "'\(name)' is not a host name or IP address")
            }
            entries.append(Self.isIPLiteral(name) ? "IP:\(name)" : "DNS:\(name)")
        }
        // A common name longer than 64 bytes is invalid; the subjectAltName carries the names anyway.
        let commonName = String(decoding: first.utf8.prefix(64), as: UTF8.self)
        var certificate: OpaquePointer?
        var key: OpaquePointer?
        let serial = Int.random(in: 1...Int.max)
        let made = ctls_identity_make(
            commonName, entries.joined(separator: ","), Int(notBefore.components.seconds), Int(notAfter.components.seconds), serial,
            isAuthority ? 1 : 0, issuer?.certificate, issuer?.key, &certificate, &key)
        guard made != 0, let certificate, let key else {
            throw TLSSetupError("certificate", reason: TLSSetupError.openSSLReason(or: "cannot be made"))
        }
        let certificateText = ctls_certificate_pem(certificate)
        let keyText = ctls_key_pem(key)
        defer {
            free(certificateText)
            // The key's text is wiped before its memory goes back to the allocator.
            if let keyText { memset(keyText, 0, strlen(keyText)) }
            free(keyText)
        }
        guard let certificateText, let keyText else {
            ctls_certificate_free(certificate)
            ctls_key_free(key)
            throw TLSSetupError("certificate", reason: TLSSetupError.openSSLReason(or: "cannot be written as PEM"))
        }
        certificatePEM = String(cString: certificateText)
        privateKeyPEM = String(cString: keyText)
        self.certificate = certificate
        self.key = key
    }

    deinit {
        ctls_certificate_free(certificate)
        ctls_key_free(key)
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a DNS name.
    static func isIPLiteral(_ host: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, host, &address) == 1 || inet_pton(AF_INET6, host, &address) == 1
    }
}
