/// How a client does TLS for one run's https target: verification, trust, its own certificate.
///
/// Made from the plan's `tls.*` keys, with the text of the files they name: the engine reads no
/// files. The defaults verify the server against the system's certificates, with TLS 1.2 at least.
public struct TLSConfiguration: Sendable, Hashable {
    /// A TLS protocol version.
    public enum Version: String, Sendable, Hashable, CaseIterable {
        /// TLS 1.2 (RFC 5246), `tls.min_version: 1.2`.
        case tls12 = "1.2"
        /// TLS 1.3 (RFC 8446), `tls.min_version: 1.3`.
        case tls13 = "1.3"

        /// The version's number on the wire (`0x0303` for 1.2).
        var wireValue: Int32 {
            switch self {
            case .tls12: 0x0303
            case .tls13: 0x0304
            }
        }
    }

    /// Whether the server's certificate is checked (chain, validity, name). `false` accepts any.
    ///
    /// When `false`, `trustedCertificates` are not used.
    public var verify: Bool
    /// Certificates to trust instead of the system's, each text PEM with one certificate or more:
    /// a private CA's (the text of `tls.ca_file`), or the builtin server's self-signed certificate,
    /// trusted exactly. When empty, the system's certificates are trusted (`SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` are honoured).
    public var trustedCertificates: [String]
    /// The client's certificate chain as PEM text, leaf first (the text of `tls.client_cert`);
    /// needs `clientPrivateKeyPEM`.
    public var clientCertificateChainPEM: String?
    /// The unencrypted private key of `clientCertificateChainPEM`, as PEM text (the text of
    /// `tls.client_key`).
    public var clientPrivateKeyPEM: String?
    /// The name sent as SNI and required in the server's certificate instead of the target's host
    /// (`tls.server_name`). An IP literal here is matched against the certificate's IP addresses.
    public var serverName: String?
    /// The oldest protocol version accepted (`tls.min_version`).
    public var minimumVersion: Version

    /// A configuration; the defaults verify against the system's certificates, TLS 1.2 at least.
    public init(
        verify: Bool = true, trustedCertificates: [String] = [], clientCertificateChainPEM: String? = nil,
        clientPrivateKeyPEM: String? = nil, serverName: String? = nil, minimumVersion: Version = .tls12
    ) {
        self.verify = verify
        self.trustedCertificates = trustedCertificates
        self.clientCertificateChainPEM = clientCertificateChainPEM
        self.clientPrivateKeyPEM = clientPrivateKeyPEM
        self.serverName = serverName
        self.minimumVersion = minimumVersion
    }
}
