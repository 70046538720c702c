import CTLS

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS context could not be made: a file that cannot be read or is not what it should be, a
/// key that does not match its certificate, or no OpenSSL. Reported before anything is sent.
public struct TLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being set up, e.g. "CA file", "client key", "trusted certificate 1".
    public let subject: String
    /// The file concerned, when there is one.
    public let file: String?
    /// Why, in OpenSSL's or the system's words: "No such file or directory", "key values mismatch".
    public let reason: String

    /// The text a person reads.
    public var description: String {
        if let file { return "\(subject) \(file): \(reason)" }
        return subject.isEmpty ? reason : "\(subject): \(reason)"
    }

    init(_ subject: String, file: String? = nil, reason: String) {
        self.subject = subject
        self.file = file
        self.reason = reason
    }

    init(_ unavailable: TLSUnavailable) {
        self.init("", reason: unavailable.description)
    }

    /// The reason of the oldest error OpenSSL queued on this thread (the queue is emptied), or `fallback`.
    static func openSSLReason(or fallback: String) -> String {
        String(capacity: 256) { ctls_take_error($0, $1) != 0 } ?? fallback
    }

    /// Throws when `path` cannot be opened for reading, with the system's reason: OpenSSL's own
    /// words for a missing file differ between versions and name no file. What is not a regular
    /// file is refused before it is opened: OpenSSL opening a FIFO would wait for a writer forever.
    static func checkReadable(_ path: String, as subject: String) throws(TLSSetupError) {
        var status = stat()
        guard stat(path, &status) == 0 else { throw TLSSetupError(subject, file: path, reason: String(cString: strerror(errno))) }
        let kind: String? =
            switch status.st_mode & S_IFMT {
            case S_IFREG: nil
            case S_IFDIR: "is a directory"
            case S_IFIFO: "is a FIFO, not a file"
            case S_IFSOCK: "is a socket, not a file"
            case S_IFCHR, S_IFBLK: "is a device, not a file"
            default: "is not a regular file"
            }
        if let kind { throw TLSSetupError(subject, file: path, reason: kind) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw TLSSetupError(subject, file: path, reason: String(cString: strerror(errno))) }
        close(fd)
    }
}
