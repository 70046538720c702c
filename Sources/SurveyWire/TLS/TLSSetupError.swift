import CTLS

/// A TLS context could not be made: PEM text that holds no certificate or key, a key that does
/// not match its certificate, or no OpenSSL. Reported before anything is sent.
///
/// The engine reads no files: whoever read the PEM text from a file names it in the error
/// (`naming(file:as:certificateFile:)`), so that a person reads which file to fix.
public struct TLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being set up, e.g. "client key", "trusted certificate 1", or what whoever read
    /// its file called it ("CA file").
    public let subject: String
    /// The file the subject was read from, when whoever read it named it.
    public let file: String?
    /// Why, in OpenSSL's or the system's words: "no start line", "does not match the certificate
    /// (key values mismatch)".
    public let reason: String
    /// For a key that does not match its certificate: OpenSSL's reason ("key values mismatch"),
    /// kept apart so that `naming` can name the certificate's file in `reason`.
    let keyMismatch: String?

    /// The text a person reads.
    public var description: String {
        if let file { return "\(subject) \(file): \(reason)" }
        return subject.isEmpty ? reason : "\(subject): \(reason)"
    }

    /// An error about `subject`, read from `file` when there is one: for a file that cannot be
    /// read (`CA file /x/ca.pem: no such file or directory`), by whoever reads it.
    public init(_ subject: String, file: String? = nil, reason: String) {
        self.init(subject, file: file, reason: reason, keyMismatch: nil)
    }

    init(_ subject: String, file: String? = nil, reason: String, keyMismatch: String?) {
        self.subject = subject
        self.file = file
        self.reason = reason
        self.keyMismatch = keyMismatch
    }

    init(_ unavailable: TLSUnavailable) {
        self.init("", reason: unavailable.description)
    }

    /// A key, `subject` ("client key"), that does not match the certificate it was given with,
    /// for OpenSSL's `reason`.
    static func keyMismatch(_ subject: String, reason: String) -> TLSSetupError {
        TLSSetupError(subject, reason: "does not match the certificate (\(reason))", keyMismatch: reason)
    }

    /// This error naming `file`, the file its subject's PEM text was read from, and calling the
    /// subject `subject` when given ("CA file" for the text handed over as trusted certificate 1).
    /// For a key that does not match its certificate, `certificateFile` names the certificate's
    /// file: `client key /x/k.pem: does not match the certificate /x/c.pem (key values mismatch)`.
    public func naming(file: String, as subject: String? = nil, certificateFile: String? = nil) -> TLSSetupError {
        var reason = self.reason
        if let keyMismatch, let certificateFile { reason = "does not match the certificate \(certificateFile) (\(keyMismatch))" }
        return TLSSetupError(subject ?? self.subject, file: file, reason: reason, keyMismatch: keyMismatch)
    }

    /// The reason of the oldest error OpenSSL queued on this thread (the queue is emptied), or `fallback`.
    static func openSSLReason(or fallback: String) -> String {
        String(capacity: 256) { ctls_take_error($0, $1) != 0 } ?? fallback
    }
}
