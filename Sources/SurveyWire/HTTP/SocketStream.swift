#if canImport(Glibc)
    import Glibc
#endif

/// The bytes of one connection, straight from its socket or through TLS: what the client's and
/// the server's connections read and write, so that neither needs to say which.
///
/// Loop thread only, like the connection that owns it. The descriptor stays the connection's.
struct SocketStream {
    let fd: Int32
    /// The TLS connection over `fd`, for https; its handshake is the connection's to drive.
    let tls: TLSConnection?

    /// What the socket must become before the call is worth repeating.
    enum Wait: Equatable {
        case readable, writable
    }

    /// Why a stream broke.
    enum Failure: Equatable {
        /// A socket call failed with this errno.
        case system(Int32)
        /// TLS failed after its handshake.
        case tls(TLSFailure)
    }

    enum ReadResult: Equatable {
        /// That many bytes are in the buffer (at least one).
        case bytes(Int)
        case wait(Wait)
        /// The peer ended the stream.
        case closed
        case failed(Failure)
    }

    enum WriteResult: Equatable {
        /// Every byte is sent (or, through TLS, encrypted and in the socket).
        case done
        case wait(Wait)
        case failed(Failure)
    }

    /// Reads what is there into `buffer`. Through TLS, more may be buffered inside the TLS connection
    /// after a read, with no event to say so: read again until `wait`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        if let tls {
            switch tls.read(into: buffer) {
            case .bytes(let count): return .bytes(count)
            case .wantRead: return .wait(.readable)
            case .wantWrite: return .wait(.writable)
            case .closed: return .closed
            case .failed(let failure): return .failed(failure.kind == .connection ? .system(failure.systemError) : .tls(failure))
            }
        }
        let count = recv(fd, buffer.baseAddress, buffer.count, 0)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .closed }
        let error = errno
        return error == EAGAIN || error == EWOULDBLOCK || error == EINTR ? .wait(.readable) : .failed(.system(error))
    }

    /// Sends `bytes[written...]`, advancing `written` past what was taken. A write that must
    /// wait is repeated later with the same bytes, as TLS requires.
    func write(_ bytes: [UInt8], from written: inout Int) -> WriteResult {
        guard let tls else {
            switch Sockets.write(fd, bytes, from: &written) {
            case .done: return .done
            case .wouldBlock: return .wait(.writable)
            case .failed(let error): return .failed(.system(error))
            }
        }
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { tls.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
            switch result {
            case .wrote(let count): written += count
            case .wantRead: return .wait(.readable)
            case .wantWrite: return .wait(.writable)
            case .failed(let failure): return .failed(failure.kind == .connection ? .system(failure.systemError) : .tls(failure))
            }
        }
        return .done
    }
}
