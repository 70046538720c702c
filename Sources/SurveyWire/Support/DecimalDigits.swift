/// A non-negative integer's decimal digits, written on the stack: what a `Content-Length` holds,
/// for HTTP/1.1's head and HTTP/2's field alike, without a string or an append per digit.
enum DecimalDigits {
    /// Calls `body` with the ASCII digits of `value` (at least one; a negative value as 0).
    @inline(__always)
    static func with<Result>(_ value: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // Twenty places: Int.max has nineteen digits.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { buffer in
            var rest = max(value, 0)
            var start = 24
            repeat {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            return body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}
