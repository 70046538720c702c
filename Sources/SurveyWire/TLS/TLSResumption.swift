import CTLS

/// What a later connection resumes: the TLS session of an earlier one to the same target, offered
/// for an abbreviated handshake. Kept per event loop; not thread-safe.
final class TLSResumption {
    /// The `SSL_SESSION`, one reference owned here.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        ctls_resumption_free(pointer)
    }
}
