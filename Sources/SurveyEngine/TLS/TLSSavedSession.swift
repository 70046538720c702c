import CTLS

/// A TLS session kept from one connection to offer on the next to the same target, for an
/// abbreviated handshake. Kept per event loop; not thread-safe.
final class TLSSavedSession {
    /// The `SSL_SESSION`, one reference owned here.
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        ctls_saved_session_free(pointer)
    }
}
