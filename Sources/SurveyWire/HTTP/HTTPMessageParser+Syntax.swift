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
    /// Every response's every line passes here: the name is read and checked in one pass up to
    /// the first byte that is not a token's, which must be the colon, and the value checked
    /// eight bytes at a time (`hasNoControlByte`), its last bytes as the eight that end it.
    static func field(_ line: UnsafeRawBufferPointer) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard let base = line.baseAddress else { return nil }
        let count = line.count
        var colon = 0
        // The colon is not a token byte: the name ends at it, or at a byte no name may hold.
        while colon < count && isTokenByte(base.load(fromByteOffset: colon, as: UInt8.self)) { colon += 1 }
        guard colon > 0, colon < count, base.load(fromByteOffset: colon, as: UInt8.self) == 0x3A else { return nil }
        var start = colon + 1
        var end = count
        while start < end && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        while end > start && (line[end - 1] == 0x20 || line[end - 1] == 0x09) { end -= 1 }
        if end - start >= 8 {
            // Whole words, then the last eight bytes, which may overlap the last word checked.
            var index = start
            while index + 8 < end {
                guard isFieldValueWord(base, at: index) else { return nil }
                index += 8
            }
            guard isFieldValueWord(base, at: end - 8) else { return nil }
        } else {
            for index in start..<end where !isFieldValueByte(line[index]) { return nil }
        }
        return (UnsafeRawBufferPointer(start: base, count: colon), UnsafeRawBufferPointer(start: base + start, count: end - start))
    }

    /// Where the parts of a field line lie, as offsets from its first byte: the name ends at
    /// `nameEnd` (the colon), the value runs from `valueStart` to `valueEnd` without the
    /// whitespace around it, and the line with its CRLF (or LF) is `length` bytes.
    struct WholeFieldLine {
        var nameEnd: Int
        var valueStart: Int
        var valueEnd: Int
        var length: Int
    }

    /// A field line that lies whole in the `count` bytes at `base`, read and checked in one
    /// pass: the name while its bytes are a token's, the colon, the value eight bytes at a time
    /// up to its first control byte, which must be the line's end (CRLF or LF). The same rule as
    /// `field` after `takeLine`, without finding the line's end first (`memchr`) and reading
    /// its bytes again. Nil when the line does not end within `count` bytes or breaks the rule
    /// anywhere: the line-at-a-time path then reads it, and says what broke.
    @inline(__always)
    static func wholeFieldLine(_ base: UnsafeRawPointer, _ count: Int) -> WholeFieldLine? {
        var index = 0
        // The name: eight letters, digits or dashes at a time (what names are made of), then
        // byte by byte from the first other byte, which may still be a token's.
        while index + 8 <= count {
            let others = notAlphanumericOrDash(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if others == 0 {
                index += 8
                continue
            }
            index += others.trailingZeroBitCount >> 3
            break
        }
        while index < count && isTokenByte(base.load(fromByteOffset: index, as: UInt8.self)) { index += 1 }
        guard index > 0, index < count, base.load(fromByteOffset: index, as: UInt8.self) == 0x3A else { return nil }
        let nameEnd = index
        index += 1
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            guard byte == 0x20 || byte == 0x09 else { break }
            index += 1
        }
        let valueStart = index
        index = fieldValueEnd(base, from: index, count)
        guard let length = lineEnd(base, at: index, count) else { return nil }
        var valueEnd = index
        while valueEnd > valueStart {
            let byte = base.load(fromByteOffset: valueEnd - 1, as: UInt8.self)
            guard byte == 0x20 || byte == 0x09 else { break }
            valueEnd -= 1
        }
        return WholeFieldLine(nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd, length: length)
    }

    /// Where the field-value bytes from `start` end: at the first control byte other than HTAB,
    /// or at `count`. Eight bytes at a time, by the word's lowest flag (`controlBytes`).
    @inline(__always)
    static func fieldValueEnd(_ base: UnsafeRawPointer, from start: Int, _ count: Int) -> Int {
        var index = start
        while index + 8 <= count {
            let controls = controlBytes(base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            if controls == 0 {
                index += 8
                continue
            }
            index += controls.trailingZeroBitCount >> 3
            guard base.load(fromByteOffset: index, as: UInt8.self) == 0x09 else { return index }
            index += 1
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            guard byte >= 0x20 ? byte != 0x7F : byte == 0x09 else { break }
            index += 1
        }
        return index
    }

    /// The length of a line whose text ends at `index`, with its CRLF or LF; nil when no line
    /// end is there (another control byte, or the input ends first).
    @inline(__always)
    static func lineEnd(_ base: UnsafeRawPointer, at index: Int, _ count: Int) -> Int? {
        guard index < count else { return nil }
        switch base.load(fromByteOffset: index, as: UInt8.self) {
        case 0x0A:
            return index + 1
        case 0x0D:
            guard index + 1 < count, base.load(fromByteOffset: index + 1, as: UInt8.self) == 0x0A else { return nil }
            return index + 2
        default:
            return nil
        }
    }

    /// `HTTP/1.` as the eight bytes of a status line's start hold it, with its minor version's
    /// byte cleared.
    private static let httpSlash1DotWord = UInt64(0x00_2E_31_2F_50_54_54_48)

    /// A status line that lies whole in the `count` bytes at `base`, read and checked in one
    /// pass by `takeStatusLine`'s rule — `HTTP/1.0` or `HTTP/1.1`, a space, three digits from 100
    /// to 599, then nothing or a space and a reason of field-value bytes — and its line end:
    /// the minor version, the status and the line's length. Nil when the line does not end
    /// within `count` bytes or breaks the rule: the line-at-a-time path then reads it.
    @inline(__always)
    static func wholeStatusLine(_ base: UnsafeRawPointer, _ count: Int) -> (minor: Int, status: Int, length: Int)? {
        guard count >= 14 else { return nil }
        let version = base.loadUnaligned(as: UInt64.self)
        guard version & 0x00FF_FFFF_FFFF_FFFF == httpSlash1DotWord, base.load(fromByteOffset: 8, as: UInt8.self) == 0x20 else {
            return nil
        }
        guard let minor = digit(base.load(fromByteOffset: 7, as: UInt8.self)), minor <= 1,
            let a = digit(base.load(fromByteOffset: 9, as: UInt8.self)), (1...5).contains(a),
            let b = digit(base.load(fromByteOffset: 10, as: UInt8.self)),
            let c = digit(base.load(fromByteOffset: 11, as: UInt8.self))
        else { return nil }
        var index = 12
        if base.load(fromByteOffset: 12, as: UInt8.self) == 0x20 { index = fieldValueEnd(base, from: 13, count) }
        guard let length = lineEnd(base, at: index, count) else { return nil }
        return (minor, a * 100 + b * 10 + c, length)
    }

    /// Whether the eight bytes at `offset` are all field-value bytes: at once when none is a
    /// control byte, else one by one (a HTAB is one).
    @inline(__always)
    private static func isFieldValueWord(_ base: UnsafeRawPointer, at offset: Int) -> Bool {
        if hasNoControlByte(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
        for index in offset..<(offset + 8) where !isFieldValueByte(base.load(fromByteOffset: index, as: UInt8.self)) { return false }
        return true
    }

    /// Whether none of the eight bytes of `word` is below 0x20 or is 0x7F: then all are
    /// field-value bytes. False may still be all field-value bytes (a HTAB), which the caller
    /// checks one by one. Each test is exact for "any byte" (the `haszero`/`hasless` bit tricks).
    @inline(__always)
    static func hasNoControlByte(_ word: UInt64) -> Bool {
        controlBytes(word) == 0
    }

    /// The high bit of each byte of `word` (little-endian: the first byte in memory is the
    /// lowest) that may be a control byte (below 0x20, or 0x7F). The lowest bit set is exact —
    /// the first control byte — and bytes above it may be flagged falsely (a borrow carries
    /// upwards), so a caller reads only the lowest.
    @inline(__always)
    static func controlBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (word &- ones &* 0x20) & ~word & highs
        let del = word ^ (ones &* 0x7F)
        let is7F = (del &- ones) & ~del & highs
        return below20 | is7F
    }

    /// The high bit of each byte of `word` that is not an ASCII letter, digit or `-`; the lowest
    /// bit set is exact (the first such byte), as in `controlBytes`. Each test is exact for an
    /// ASCII byte — a range as two additions that carry out of no byte, a byte equal to `-` with
    /// no borrow — and a byte of 0x80 or more fails each range itself, a carry out of it
    /// disturbing only the bytes above.
    @inline(__always)
    static func notAlphanumericOrDash(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let low7 = ones &* 0x7F
        let folded = word | (ones &* 0x20)
        let letter = (folded &+ ones &* (0x80 - 0x61)) & ~(folded &+ ones &* (0x7F - 0x7A))
        let digit = (word &+ ones &* (0x80 - 0x30)) & ~(word &+ ones &* (0x7F - 0x39))
        let dashless = word ^ (ones &* 0x2D)
        let dash = ~(((dashless & low7) &+ low7) | dashless | low7)
        return ~(letter | digit | dash) & highs
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
            if equalsIgnoringCase(UnsafeRawBufferPointer(rebasing: trimmed(list[start..<end])), token) { return true }
            start = end + 1
        }
        return false
    }

    /// ASCII case-insensitive comparison of bytes in memory with a lowercase literal: every
    /// response's framing fields' names and its `Connection` value are compared so, a byte at
    /// a time through pointers rather than through a collection's indices.
    /// Eight bytes at a time when there are eight: a byte ORed with 0x20 equals a lowercase
    /// letter, a digit or `-` only when it is that letter in either case, or that digit or dash
    /// — or a control byte (CR folds onto `-`), which no field name or value the parser has
    /// checked holds. So the literal must be made of those alone, and `bytes` be a checked
    /// field's name or value, or a part of one.
    @inline(__always)
    static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let count = lowercase.utf8CodeUnitCount
        guard bytes.count == count else { return false }
        guard let base = bytes.baseAddress else { return true }
        let literal = lowercase.utf8Start
        assert(UnsafeBufferPointer(start: literal, count: count).allSatisfy { $0 == 0x2D || $0 &- 0x30 < 10 || $0 &- 0x61 < 26 })
        if count >= 8 {
            let fold: UInt64 = 0x2020_2020_2020_2020
            let expected = UnsafeRawPointer(literal)
            var index = 0
            // Whole words, then the last eight bytes, which may overlap the last word compared.
            while index + 8 < count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self) | fold
                guard word == expected.loadUnaligned(fromByteOffset: index, as: UInt64.self) else { return false }
                index += 8
            }
            let last = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) | fold
            return last == expected.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        var index = 0
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            // An upper-case letter folded; nothing else is changed.
            let folded = byte &- 0x41 < 26 ? byte | 0x20 : byte
            guard folded == literal[index] else { return false }
            index += 1
        }
        return true
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
