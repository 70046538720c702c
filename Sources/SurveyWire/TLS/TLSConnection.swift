import CTLS

#if canImport(Glibc)
    import Glibc
#endif

/// How far a handshake got: done, waiting for the socket, or failed.
enum TLSStep: Sendable, Hashable {
    /// The handshake is complete: application data may flow.
    case done
    /// Call again once the socket is readable (`EPOLLIN`).
    case wantRead
    /// Call again once the socket is writable (`EPOLLOUT`).
    case wantWrite
    /// The handshake failed; the connection is unusable.
    case failed(TLSFailure)
}

/// What a read produced.
enum TLSRead: Sendable, Hashable {
    /// That many bytes of application data are in the buffer (at least 1).
    case bytes(Int)
    /// Nothing yet: call again once the socket is readable. Also what a read that only consumed
    /// TLS 1.3 session tickets answers.
    case wantRead
    /// Nothing yet: call again once the socket is writable (TLS needs to send first).
    case wantWrite
    /// The peer ended the stream: close_notify, or a clean end of stream without it.
    case closed
    /// The connection is broken.
    case failed(TLSFailure)
}

/// What a write did.
enum TLSWrite: Sendable, Hashable {
    /// That many bytes (at least 1, maybe fewer than given) are encrypted and in the socket.
    case wrote(Int)
    /// Nothing written: call again once the socket is readable.
    case wantRead
    /// Nothing written: call again once the socket is writable.
    case wantWrite
    /// The connection is broken.
    case failed(TLSFailure)
}

/// One TLS connection over a connected, non-blocking socket, stepped by the event loop that owns
/// the socket. Not thread-safe: one loop's thread only.
///
/// Every call returns at once. `wantRead` means wait for `EPOLLIN`, `wantWrite` for `EPOLLOUT`,
/// whichever call answered it (a read may need to write, and the reverse). A write that answered
/// `wantRead` or `wantWrite` must be retried with the same bytes, which may have moved in memory
/// (a growing array is fine); a write may take only part of its bytes.
///
/// The socket stays the caller's: `deinit` frees OpenSSL's state, never closes the descriptor.
/// The TLS session kept from a connection that ended without a fatal error stays resumable, whether
/// or not close_notify was sent; one that failed is forgotten.
final class TLSConnection {
    /// Which end of the connection this is.
    enum Role: Sendable, Hashable {
        /// Connects: `handshake()` runs `SSL_connect`.
        case client
        /// Accepts: `handshake()` runs `SSL_accept`.
        case server
    }

    /// Which end of the connection this is.
    let role: Role
    private let pointer: OpaquePointer
    /// Whether the peer's certificate is verified, so that a failed handshake may be its fault.
    private let verifiesPeer: Bool
    /// A fatal error happened: OpenSSL forbids a shutdown after one.
    private var broken = false

    /// A client connection to `host` (a DNS name or an IP literal, brackets allowed) over `fd`.
    ///
    /// The context's server-name override, when set, replaces `host` both as SNI and in the
    /// certificate check. SNI is sent for DNS names only; an IP literal is matched against the
    /// certificate's IP addresses. `saved`, a session of an earlier connection to the same
    /// target, is offered for resumption.
    ///
    /// - Throws: `TLSFailure` of kind `handshake` when OpenSSL cannot make the connection (memory).
    init(client context: TLSClientContext, fd: Int32, host: String, resuming saved: TLSResumption? = nil) throws(TLSFailure) {
        guard let pointer = ctls_connection_new(context.pointer, fd) else {
            throw TLSFailure(.handshake, reason: TLSSetupError.openSSLReason(or: "cannot make a TLS connection"))
        }
        role = .client
        self.pointer = pointer
        verifiesPeer = context.configuration.verify
        var name = context.configuration.serverName ?? host
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        let isIP = TLSIdentity.isIPLiteral(name)
        var configured = isIP ? 1 : ctls_connection_set_server_name(pointer, name)
        if configured != 0 && verifiesPeer {
            configured = isIP ? ctls_connection_expect_ip(pointer, name) : ctls_connection_expect_host(pointer, name)
        }
        if configured != 0, let saved {
            configured = ctls_connection_offer(pointer, saved.pointer)
        }
        // deinit frees the connection from here on, whether this throws or not.
        guard configured != 0 else {
            throw TLSFailure(.handshake, reason: TLSSetupError.openSSLReason(or: "cannot use the server name '\(name)'"))
        }
    }

    /// The server end of an accepted connection over `fd`.
    ///
    /// - Throws: `TLSFailure` of kind `handshake` when OpenSSL cannot make the connection (memory).
    init(server context: TLSServerContext, fd: Int32) throws(TLSFailure) {
        guard let pointer = ctls_connection_new(context.pointer, fd) else {
            throw TLSFailure(.handshake, reason: TLSSetupError.openSSLReason(or: "cannot make a TLS connection"))
        }
        role = .server
        self.pointer = pointer
        verifiesPeer = context.requiresClientCertificate
    }

    deinit {
        ctls_connection_free(pointer, broken ? 0 : 1)
    }

    /// Whether OpenSSL frees this connection's buffers whenever they are empty: those made while
    /// `CTLS_KEEP_BUFFERS_UP_TO` others are open do; the first ones keep theirs.
    var releasesBuffers: Bool { ctls_connection_releases_buffers(pointer) != 0 }

    // MARK: Steps

    /// Advances the handshake (`SSL_connect` for a client, `SSL_accept` for a server).
    func handshake() -> TLSStep {
        let result = role == .client ? ctls_connection_connect(pointer) : ctls_connection_accept(pointer)
        if result.value == 1 { return .done }
        switch result.error {
        case Self.wantRead: return .wantRead
        case Self.wantWrite: return .wantWrite
        default:
            broken = true
            return .failed(handshakeFailure(result))
        }
    }

    /// Reads decrypted application data into `buffer` (at most `Int32.max` bytes at a time); an
    /// empty buffer reads nothing and answers `.bytes(0)`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSRead {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return .bytes(0) }
        let result = ctls_connection_read(pointer, base, Int32(clamping: buffer.count))
        if result.value > 0 { return .bytes(Int(result.value)) }
        switch result.error {
        case Self.wantRead: return .wantRead
        case Self.wantWrite: return .wantWrite
        case Self.zeroReturn: return .closed
        case Self.syscall where result.queued == 0 && result.system_error == 0:
            // 1.1's word for an end of stream without close_notify (3.x has the option set).
            return .closed
        case Self.ssl where ctls_error_is_unexpected_eof(result.queued) != 0:
            return .closed
        default:
            broken = true
            return .failed(streamFailure(result))
        }
    }

    /// Encrypts and sends application data from `bytes` (at most `Int32.max` bytes at a time); no
    /// bytes answer `.wrote(0)`.
    func write(_ bytes: UnsafeRawBufferPointer) -> TLSWrite {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .wrote(0) }
        let result = ctls_connection_write(pointer, base, Int32(clamping: bytes.count))
        if result.value > 0 { return .wrote(Int(result.value)) }
        switch result.error {
        case Self.wantRead: return .wantRead
        case Self.wantWrite: return .wantWrite
        default:
            broken = true
            return .failed(streamFailure(result))
        }
    }

    /// Sends close_notify if the handshake finished and the socket takes it now; never waits and
    /// never fails. Call before closing the socket of a connection that ends well.
    func shutdown() {
        guard !broken else { return }
        ctls_connection_shutdown(pointer)
    }

    // MARK: What was negotiated

    /// The protocol version: "TLSv1.3", "TLSv1.2".
    var protocolVersion: String { String(cString: ctls_connection_version(pointer)) }

    /// The cipher suite's OpenSSL name ("TLS_AES_256_GCM_SHA384"), nil before the handshake.
    var cipher: String? { ctls_connection_cipher(pointer).map { String(cString: $0) } }

    /// Whether the handshake resumed an earlier session instead of a full exchange.
    var resumed: Bool { ctls_connection_resumed(pointer) != 0 }

    /// The application protocol agreed with ALPN ("http/1.1"), nil when none was.
    var applicationProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        ctls_connection_alpn(pointer, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Whether the peer presented a certificate (for a server: whether the client did).
    var peerPresentedCertificate: Bool { ctls_connection_peer_has_certificate(pointer) != 0 }

    /// The TLS session to offer on the next connection to the same target, nil when there is none
    /// to resume. With TLS 1.3 the server's tickets arrive after the handshake: save after the
    /// first read of a response, not right after the handshake.
    func resumption() -> TLSResumption? {
        ctls_connection_save(pointer).map(TLSResumption.init)
    }

    // MARK: Failures

    private static let ssl: Int32 = 1
    private static let wantRead: Int32 = 2
    private static let wantWrite: Int32 = 3
    private static let syscall: Int32 = 5
    private static let zeroReturn: Int32 = 6

    /// A handshake failure: the certificate's fault when verification ran and refused it (the
    /// only reliable sign: the error queue says only "certificate verify failed"), else the
    /// protocol's.
    private func handshakeFailure(_ result: ctls_result) -> TLSFailure {
        if verifiesPeer {
            let verdict = ctls_connection_verify_result(pointer)
            if verdict != 0 { return TLSFailure(.certificate, reason: String(cString: ctls_verify_reason(verdict))) }
        }
        switch result.error {
        case Self.zeroReturn:
            return TLSFailure(.handshake, reason: TLSFailure.closedDuringHandshake)
        case Self.syscall where result.queued == 0:
            // An end of stream while reading, or a broken pipe while writing: closed either way.
            let error = result.system_error
            guard error != 0 && error != EPIPE else {
                return TLSFailure(.handshake, reason: TLSFailure.closedDuringHandshake, systemError: error)
            }
            return TLSFailure(.handshake, reason: "\(TLSFailure.systemReason(error)) during the handshake", systemError: error)
        default:
            if ctls_error_is_unexpected_eof(result.queued) != 0 {
                return TLSFailure(.handshake, reason: TLSFailure.closedDuringHandshake)
            }
            return TLSFailure(.handshake, reason: Self.explained(Self.reason(result.queued)))
        }
    }

    /// OpenSSL's reason, with what it most likely means where its words do not say: "wrong
    /// version number" is what it says of a first answer that is no TLS record at all.
    static func explained(_ reason: String) -> String {
        guard reason == "wrong version number" else { return reason }
        return reason + " (the server's answer was not TLS: does it speak plain http on this port?)"
    }

    /// A failure after the handshake: the socket's (reset, broken pipe) or the protocol's.
    private func streamFailure(_ result: ctls_result) -> TLSFailure {
        if result.error == Self.syscall && result.queued == 0 {
            let error = result.system_error != 0 ? result.system_error : EPIPE
            return TLSFailure(.connection, reason: TLSFailure.systemReason(error), systemError: error)
        }
        return TLSFailure(.handshake, reason: Self.reason(result.queued))
    }

    private static func reason(_ code: UInt) -> String {
        guard code != 0 else { return "TLS protocol error" }
        return String(capacity: 256) { buffer, size in
            ctls_error_reason(code, buffer, size)
            return true
        } ?? "TLS protocol error"
    }
}
