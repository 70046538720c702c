#if canImport(Glibc)
    import Glibc
#endif

/// Why a TLS connection failed, told apart the way reports need it.
public struct TLSFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure.
    public enum Kind: Sendable, Hashable {
        /// The TLS protocol failed: an alert (wrong version, no common cipher, certificate
        /// required), a malformed or undecryptable record, or the peer closing during the
        /// handshake. Reported as `tls_handshake`.
        case handshake
        /// The peer's certificate did not verify: untrusted, expired, not yet valid, for another
        /// host, self-signed. Reported as `tls_certificate`.
        case certificate
        /// The socket under TLS failed after the handshake (reset, broken pipe): `systemError`
        /// says how, as for a plain connection.
        case connection
    }

    /// The class of failure.
    public let kind: Kind
    /// The text a person reads: "certificate has expired", "hostname mismatch",
    /// "tlsv1 alert protocol version", "peer closed the connection during the handshake".
    public let reason: String
    /// The `errno` of a failed socket call, 0 when none was involved.
    public let systemError: Int32

    /// A failure of `kind`, for `reason`, with the `errno` involved if any.
    public init(_ kind: Kind, reason: String, systemError: Int32 = 0) {
        self.kind = kind
        self.reason = reason
        self.systemError = systemError
    }

    /// The text a person reads.
    public var description: String { reason }

    static let closedDuringHandshake = "peer closed the connection during the handshake"

    static func systemReason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
