import CTLS

/// SHA-256 by the system's OpenSSL, loaded as https loads it (`TLSLibrary`): a data file of a
/// million rows (48 MB) is hashed in a few tens of milliseconds where a hash written in Swift
/// takes ten times as long. Nil when OpenSSL is not there: the caller hashes the bytes itself,
/// so the digest is the same either way.
package enum OpenSSLDigest {
    /// The 32-byte SHA-256 of `bytes`, or nil without OpenSSL.
    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 32)
        let done = digest.withUnsafeMutableBufferPointer { out in
            ctls_sha256(bytes.baseAddress, bytes.count, out.baseAddress) != 0
        }
        return done ? digest : nil
    }
}
