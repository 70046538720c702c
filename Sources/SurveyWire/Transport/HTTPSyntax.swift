/// The grammar a request head must keep so that its bytes frame one request and only that one:
/// what a method, a request target, a host and a header may hold (RFC 9110, RFC 9112 and
/// RFC 3986). `HTTPRequest.Template` checks every part with these rules; callers that take
/// such text from people (plans, command lines) check with the same rules, earlier, to say
/// where the text came from.
public enum HTTPSyntax {
    /// Header names the engine writes itself, or that would change how a message is framed:
    /// a template refuses them (compared without regard to case).
    public static let framingHeaders: Set<String> = ["host", "content-length", "transfer-encoding", "connection"]

    /// Whether `text` is an RFC 9110 token — a method or a header name: one or more ASCII
    /// letters, digits and ``!#$%&'*+-.^_`|~``.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `byte` is an RFC 9110 token character — a digit, a letter, or one of
    /// ``!#$%&'*+-.^_`|~`` —; the parser reads every response's field names by it too, so it
    /// is a bit of one of two masks (the bytes 0-63, then 64-127) rather than a chain of ranges.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        // Without branches: the mask of the byte's half picked, and its bit read.
        let mask = byte < 64 ? tokenMaskLow : tokenMaskHigh
        return byte < 128 && (mask &>> UInt64(byte & 63)) & 1 != 0
    }

    /// The token bytes below 64 (`!#$%&'*+-.` and the digits) and from 64 to 127 (the letters
    /// and ``^_`|~``), one bit each.
    private static let tokenMaskLow: UInt64 = 0x03FF_6CFA_0000_0000
    private static let tokenMaskHigh: UInt64 = 0x57FF_FFFF_C7FF_FFFE

    /// Checks an origin-form request target (RFC 9112 §3.2.1): `/`, then path characters of
    /// RFC 3986 (unreserved, sub-delims, `:`, `@`, `/`), with a query after `?` when
    /// `allowsQuery`; anything else percent-encoded, every `%` followed by two hex digits.
    /// - Parameter part: how the error names the text, such as "path" or "base path".
    public static func checkRequestTarget(_ text: String, part: String = "path", allowsQuery: Bool = true) throws(HTTPSyntaxError) {
        guard text.unicodeScalars.first == "/" else {
            throw HTTPSyntaxError("the \(part) must start with '/'", offset: 0)
        }
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var inQuery = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "%" {
                guard index + 2 < scalars.count, scalars[index + 1].isHexDigit, scalars[index + 2].isHexDigit else {
                    throw HTTPSyntaxError(
                        "a '%' not followed by two hexadecimal digits at character \(index + 1) of the \(part) (write %25 for a '%')",
                        offset: index)
                }
                index += 3
                continue
            }
            if scalar == "?" && allowsQuery {
                inQuery = true
            } else if !isPathCharacter(scalar) && !(inQuery && scalar == "?") {
                throw HTTPSyntaxError(
                    "\(describe(scalar)) at character \(index + 1) of the \(part): a request target holds only RFC 3986 characters; "
                        + "percent-encode it as \(percentEncoded(scalar))", offset: index)
            }
            index += 1
        }
    }

    /// Checks a host as the `Host` header carries it: a name or IPv4 address (RFC 3986
    /// unreserved characters and sub-delims), or an IPv6 address (hex digits, `:` and `.`).
    public static func checkHost(_ host: String) throws(HTTPSyntaxError) {
        guard !host.isEmpty else { throw HTTPSyntaxError("the host is empty", offset: 0) }
        for (index, scalar) in host.unicodeScalars.enumerated() where !(isUnreserved(scalar) || isSubDelimiter(scalar) || scalar == ":") {
            throw HTTPSyntaxError("\(describe(scalar)) at character \(index + 1) of the host '\(host.escapingControls)'", offset: index)
        }
    }

    /// Checks a header field value (RFC 9110 §5.5): no control character but a tab — no CR,
    /// LF or NUL, which would end the header or the head early.
    /// - Parameter name: the header's name, for the error.
    public static func checkFieldValue(_ value: String, name: String) throws(HTTPSyntaxError) {
        for (index, scalar) in value.unicodeScalars.enumerated() where isControl(scalar) && scalar != "\t" {
            throw HTTPSyntaxError(
                "\(describe(scalar)) at character \(index + 1) of the value of header '\(name.escapingControls)': "
                    + "a header value may not hold control characters", offset: index)
        }
    }

    /// Whether `byte` may stand in a header field value (RFC 9110 §5.5): a tab, a space, a
    /// visible character or a byte of a non-ASCII character — never NUL, CR, LF or another
    /// control character, which would end the line, the head, or a C string early. Inlinable:
    /// the send path scans values filled into a head with it, a byte at a time.
    @inlinable
    package static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte >= 0x20 ? byte != 0x7F : byte == 0x09
    }

    /// Why `value`, filled into the header `name` at send time, must not go: the first byte no
    /// field value may hold, named and placed — never the value itself, which may be a
    /// secret —; nil when every byte may go. The one rule for a value that reaches a head line
    /// from a template, whatever gave it (a server's field, a capture, an answer, a data row,
    /// the environment).
    package static func fieldValueFault(_ value: some Collection<UInt8>, name: String) -> String? {
        var position = 0
        for byte in value {
            position += 1
            if isFieldValueByte(byte) { continue }
            return "the value filled into header '\(name.escapingControls)' holds \(describe(Unicode.Scalar(byte))) at byte "
                + "\(position): a header value may not hold control characters; not sent"
        }
        return nil
    }

    /// Checks a header's name and value, and that it is not one of `framingHeaders`.
    public static func checkHeader(_ header: HTTPHeader) throws(HTTPSyntaxError) {
        guard isToken(header.name) else {
            throw HTTPSyntaxError(
                "'\(header.name.escapingControls)' is not a valid header name (a token of letters, digits and !#$%&'*+-.^_`|~)",
                offset: 0)
        }
        guard !framingHeaders.contains(header.name.lowercased()) else {
            throw HTTPSyntaxError("'\(header.name)' is set by survey-bot and cannot be given", offset: 0)
        }
        try checkFieldValue(header.value, name: header.name)
    }

    /// How an error names a character: "a carriage return (\r)", "the character '<'",
    /// "the control character \u{1B}", with every control and non-ASCII character escaped.
    package static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\r": return "a carriage return (\\r)"
        case "\n": return "a line feed (\\n)"
        case "\0": return "a NUL (\\0)"
        case "\t": return "a tab (\\t)"
        case " ": return "a space"
        default:
            if isControl(scalar) { return "the control character \(scalar.escapedForDisplay)" }
            if !scalar.isASCII { return "the non-ASCII character \(scalar.escapedForDisplay)" }
            return "the character '\(scalar)'"
        }
    }

    /// How text shown to a person spells `scalar`, so that a terminal never acts on it nor
    /// hides it: `\0`, `\t`, `\n`, `\r` for those; `\u{1B}` for every other C0 or C1 control,
    /// DEL, and every invisible format character or separator — bidirectional overrides and
    /// isolates, a byte-order mark, a zero-width space, U+2028 —, the spelling a double-quoted
    /// plan string would use. Nil for a scalar that prints as itself. The one spelling of the
    /// command line's diagnostics (`TerminalText`) and of a server's words quoted in reports
    /// (`ResponseExcerpt`).
    package static func shownEscape(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\0": return "\\0"
        case "\t": return "\\t"
        case "\n": return "\\n"
        case "\r": return "\\r"
        default:
            let value = scalar.value
            if value >= 0x20 && value < 0x7F { return nil }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator: break
            default: return nil
            }
            let hex = String(value, radix: 16, uppercase: true)
            return "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
        }
    }

    /// The scalar's UTF-8 bytes as `%XX` escapes.
    static func percentEncoded(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf8.map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return "%" + (byte < 0x10 ? "0" : "") + hex
        }.joined()
    }

    /// `text` as this type's errors quote it: every control character (C0, DEL, C1) written
    /// as `\u{…}`. Lets a caller find a value it must not show inside such an error.
    public static func escapingControls(_ text: String) -> String {
        text.escapingControls
    }

    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    private static func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return false }
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".", "_", "~": return true
        default: return false
        }
    }

    private static func isSubDelimiter(_ scalar: Unicode.Scalar) -> Bool {
        "!$&'()*+,;=".unicodeScalars.contains(scalar)
    }

    /// RFC 3986 `pchar` without its percent-encoding, plus `/`.
    private static func isPathCharacter(_ scalar: Unicode.Scalar) -> Bool {
        isUnreserved(scalar) || isSubDelimiter(scalar) || scalar == ":" || scalar == "@" || scalar == "/"
    }
}

/// Why text cannot go into a request head: what is wrong, and where in the text.
public struct HTTPSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and how to fix it, such as "a carriage return (\r) at character 4 of the
    /// path: …". Control and non-ASCII characters are written as escapes, never as themselves.
    public var description: String
    /// The offset of the first character at fault, in Unicode scalars from the text's start.
    public var offset: Int

    package init(_ description: String, offset: Int) {
        self.description = description
        self.offset = offset
    }
}

extension Unicode.Scalar {
    /// Whether the scalar is an ASCII hex digit.
    var isHexDigit: Bool {
        switch self {
        case "0"..."9", "a"..."f", "A"..."F": true
        default: false
        }
    }

    /// `\u{1B}`: the escape Swift source would use, with at least two hex digits.
    var escapedForDisplay: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "\\u{" + (hex.count < 2 ? "0" : "") + hex + "}"
    }
}

extension String {
    /// The text with every control character (C0, DEL, C1) written as `\u{…}`.
    var escapingControls: String {
        var result = ""
        for scalar in unicodeScalars {
            if HTTPSyntax.isControl(scalar) || (0x80...0x9F).contains(scalar.value) {
                result += scalar.escapedForDisplay
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
