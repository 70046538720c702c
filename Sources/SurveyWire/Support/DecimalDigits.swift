/// A non-negative integer's decimal digits, written on the stack: what a `Content-Length` holds,
/// for HTTP/1.1's head and HTTP/2's field alike, without a string or an append per digit.
enum DecimalDigits {
    /// Calls `body` with the ASCII digits of `value` (at least one; a negative value as 0).
    @inline(__always)
    static func with<Result>(_ value: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // Twenty places: Int.max has nineteen digits.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { buffer in
            let start = write(value, endingAt: 24, in: buffer)
            return body(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes the ASCII digits of `value` (a negative value as 0) into `buffer` so that they end
    /// just before `end`, which leaves room for twenty; returns where they start.
    @inline(__always)
    static func write(_ value: Int, endingAt end: Int, in buffer: UnsafeMutableRawBufferPointer) -> Int {
        var start = end
        var rest = max(value, 0)
        repeat {
            start -= 1
            buffer[start] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
            rest /= 10
        } while rest > 0
        return start
    }
}
