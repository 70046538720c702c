/// The byte-level grammar of HTTP/1.1 (RFC 9110, RFC 9112) the parser checks with: tokens,
/// field values, quoted strings, chunk extensions, and case-insensitive comparison — over raw
/// bytes, never strings.
extension HTTPMessageParser {
    /// `*( BWS ";" BWS token [ BWS "=" BWS ( token / quoted-string ) ] )`: whitespace only
    /// around `;` and `=`, never at the end.
    static func isChunkExtensions(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < bytes.count {
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == 0x3B else { return false }
            index += 1
            skipWhitespace(bytes, &index)
            guard skipToken(bytes, &index) else { return false }
            let afterName = index
            skipWhitespace(bytes, &index)
            guard index < bytes.count, bytes[index] == 0x3D else {
                index = afterName  // whitespace here must lead to another `;`
                continue
            }
            index += 1
            skipWhitespace(bytes, &index)
            guard index < bytes.count else { return false }
            if bytes[index] == 0x22 {
                guard skipQuotedString(bytes, &index) else { return false }
            } else {
                guard skipToken(bytes, &index) else { return false }
            }
        }
        return true
    }

    static func skipWhitespace(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) {
        while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
    }

    /// Skips a token; false when there is none.
    static func skipToken(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Bool {
        let start = index
        while index < bytes.count && isTokenByte(bytes[index]) { index += 1 }
        return index > start
    }

    /// Skips the quoted-string opening at `index`: qdtext, or a backslash and the byte it
    /// escapes, up to the closing quote; false when it does not close.
    static func skipQuotedString(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x22 { return true }
            if byte == 0x5C {
                guard index < bytes.count, isFieldValueByte(bytes[index]) else { return false }
                index += 1
            } else if !isFieldValueByte(byte) {
                return false
            }
        }
        return false
    }

    // MARK: Byte helpers

    static let httpSlash1Dot: [UInt8] = Array("HTTP/1.".utf8)

    @inline(__always)
    static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// A field line split at its first colon, the value without the whitespace around it; nil
    /// when it is not `token ":" field-value` (RFC 9110 §5.1, §5.5).
    static func field(_ line: UnsafeRawBufferPointer) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard let colon = line.firstIndex(of: 0x3A), colon > 0 else { return nil }
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        for byte in name where !isTokenByte(byte) { return nil }
        var start = colon + 1
        var end = line.count
        while start < end && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        while end > start && (line[end - 1] == 0x20 || line[end - 1] == 0x09) { end -= 1 }
        let value = UnsafeRawBufferPointer(rebasing: line[start..<end])
        for byte in value where !isFieldValueByte(byte) { return nil }
        return (name, value)
    }

    /// Field-value bytes (RFC 9110 §5.5): HTAB, SP, VCHAR and obs-text; no other control
    /// character, so neither a bare CR nor a NUL.
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == 0x09
    }

    /// RFC 9110 token characters (`HTTPSyntax.isTokenByte`, the rule requests are built by).
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        HTTPSyntax.isTokenByte(byte)
    }

    static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        return bytes[start..<end]
    }

    /// The last non-empty element of a comma-separated list, trimmed; nil when there is none.
    static func lastElement(of list: UnsafeRawBufferPointer) -> Slice<UnsafeRawBufferPointer>? {
        var end = list.count
        while true {
            var start = end
            while start > 0 && list[start - 1] != 0x2C { start -= 1 }
            let element = trimmed(list[start..<end])
            if !element.isEmpty { return element }
            guard start > 0 else { return nil }
            end = start - 1
        }
    }

    /// Whether a comma-separated list holds `token`, in any case.
    static func list(_ list: UnsafeRawBufferPointer, contains token: StaticString) -> Bool {
        var start = 0
        while start <= list.count {
            var end = start
            while end < list.count && list[end] != 0x2C { end += 1 }
            if equalsIgnoringCase(trimmed(list[start..<end]), token) { return true }
            start = end + 1
        }
        return false
    }

    /// ASCII case-insensitive comparison with a lowercase literal.
    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var index = 0
        let literal = lowercase.utf8Start
        for byte in bytes {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard folded == literal[index] else { return false }
            index += 1
        }
        return true
    }
}
