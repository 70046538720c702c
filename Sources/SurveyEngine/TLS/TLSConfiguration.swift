/// How a client does TLS for one run's https target: verification, trust, its own certificate.
///
/// Decoded from the plan's `tls.*` keys; the defaults verify the server against the system's
/// certificates, with TLS 1.2 at least.
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
    /// When `false`, `caFile` and `trustedCertificates` are not read.
    public var verify: Bool
    /// A PEM file of certificates to trust instead of the system's (`tls.ca_file`).
    public var caFile: String?
    /// The client's certificate chain, a PEM file, leaf first (`tls.client_cert`); needs `clientKeyFile`.
    public var clientCertificateFile: String?
    /// The private key of `clientCertificateFile`, a PEM file (`tls.client_key`).
    public var clientKeyFile: String?
    /// The name sent as SNI and required in the server's certificate instead of the target's host
    /// (`tls.server_name`). An IP literal here is matched against the certificate's IP addresses.
    public var serverName: String?
    /// The oldest protocol version accepted (`tls.min_version`).
    public var minimumVersion: Version
    /// Certificates to trust, as PEM text: the builtin server's self-signed certificate, trusted
    /// exactly. With `caFile` unset and this empty, the system's certificates are trusted
    /// (`SSL_CERT_FILE` and `SSL_CERT_DIR` are honoured); otherwise only these and `caFile`'s.
    public var trustedCertificates: [String]

    /// A configuration; the defaults verify against the system's certificates, TLS 1.2 at least.
    public init(
        verify: Bool = true, caFile: String? = nil, clientCertificateFile: String? = nil, clientKeyFile: String? = nil,
        serverName: String? = nil, minimumVersion: Version = .tls12, trustedCertificates: [String] = []
    ) {
        self.verify = verify
        self.caFile = caFile
        self.clientCertificateFile = clientCertificateFile
        self.clientKeyFile = clientKeyFile
        self.serverName = serverName
        self.minimumVersion = minimumVersion
        self.trustedCertificates = trustedCertificates
    }
}
