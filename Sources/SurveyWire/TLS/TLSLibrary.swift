import CTLS

#if canImport(Glibc)
    import Glibc
#endif

/// The system's OpenSSL (`libssl.so.3`, else `libssl.so.1.1`), loaded at run time on first use.
///
/// Nothing links libssl: the binary starts without it, and only https needs it.
struct TLSLibrary: Sendable {
    /// The library file that was loaded: `libssl.so.3` or `libssl.so.1.1`.
    let fileName: String
    /// OpenSSL's own version text, e.g. "OpenSSL 3.0.19 27 Jan 2026".
    let version: String
    /// `OpenSSL_version_num()`: `0xMNN00PP0`, so 3.x is at least `0x3000_0000`.
    let versionNumber: UInt

    /// The library, loaded once for the whole process (thread-safe), or why it cannot be had.
    static let shared: Result<TLSLibrary, TLSUnavailable> = {
        guard ctls_load() != 0 else { return .failure(TLSUnavailable(description: String(cString: ctls_load_error()))) }
        return .success(
            TLSLibrary(
                fileName: String(cString: ctls_library_name()), version: String(cString: ctls_version_text()),
                versionNumber: UInt(ctls_version_number())))
    }()

    /// Loads the first of `names` that opens, as `shared` does with the real names, and keeps nothing:
    /// nil when one would do, else what `shared` would report. For tests of the messages.
    static func probe(_ names: [String]) -> TLSUnavailable? {
        let copies = names.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        let message = String(capacity: 1024) { buffer, size in
            copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { list in
                ctls_probe(list.baseAddress, Int32(list.count), buffer, size) == 0
            }
        }
        return message.map { TLSUnavailable(description: $0) }
    }
}

/// https cannot be used: OpenSSL's libssl is missing or lacks a function.
///
/// The description names the libraries tried and why each failed, e.g. "https needs OpenSSL's libssl
/// (tried libssl.so.3, libssl.so.1.1): libssl.so.3: cannot open shared object file: No such file or
/// directory; …", or the library and the missing function.
public struct TLSUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text a person reads.
    public let description: String
}
