/// A JSON document, read from bytes by a small strict parser (RFC 8259).
///
/// The engine reads the questions list and the server reads submit bodies with it: both are
/// small, and a parser over bytes with no Foundation round trip keeps the hot path cheap and
/// the behaviour identical on every platform.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in 64 bits.
    case integer(Int)
    /// Any other number: with a fraction or exponent, or too large for `integer`; always finite.
    /// `text` is the number as the document wrote it (`1e2`, `12345678901234567890`), which a
    /// value captured from it is, byte for byte: the `Double` is only near it.
    case number(Double, text: String)
    /// A string, its escapes decoded.
    case string(String)
    /// Elements in document order.
    case array([JSONValue])
    /// Members in document order; a repeated name keeps its last value in `subscript`.
    case object([(String, JSONValue)])

    /// Structural equality: objects compare member by member in document order, and
    /// `.integer(1)` differs from `.number(1.0)`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a, _), .number(let b, _)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// Hashes what `==` compares, object members in order.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .number(let value, _): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let members):
            for (name, value) in members {
                hasher.combine(name)
                hasher.combine(value)
            }
        }
    }

    /// A number that no document wrote, written as Swift writes a `Double` (`3.5`).
    public static func number(_ value: Double) -> JSONValue { .number(value, text: String(value)) }

    /// The value of member `name` of an object, the last one if the name repeats; nil when
    /// there is no such member or the value is not an object.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.0 == name }?.1
    }

    /// Why bytes are not JSON, and where.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// Byte offset of the problem, from 0.
        package var offset: Int
        package var reason: String
        /// The reason and the offset, from 0: `expected ':' at byte 12`.
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// Parses a whole document: one value, optional whitespace around it, nothing else. Fails on
    /// nesting deeper than 64, invalid UTF-8 in a string, and numbers too large for a `Double`.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<JSONValue, ParseError> {
        let array = Array(bytes)
        return array.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            do throws(ParseError) {
                reader.skipWhitespace()
                let value = try reader.readValue(depth: 0)
                reader.skipWhitespace()
                guard reader.index == buffer.count else { throw reader.error("unexpected bytes after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
    }
}

private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    static let maxDepth = 64

    func error(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: index, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    mutating func readValue(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case 0x7B: return try readObject(depth: depth)
        case 0x5B: return try readArray(depth: depth)
        case 0x22: return .string(try readString())
        case 0x74: return try readLiteral("true", .bool(true))
        case 0x66: return try readLiteral("false", .bool(false))
        case 0x6E: return try readLiteral("null", .null)
        case 0x2D, 0x30...0x39: return try readNumber()
        default: throw error("unexpected character")
        }
    }

    mutating func readLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("unexpected character")
        }
        index += count
        return value
    }

    mutating func readObject(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        index += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == 0x7D {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == 0x22 else { throw error("expected a member name") }
            let name = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == 0x3A else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((name, try readValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            guard bytes[index] == 0x7D else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    mutating func readArray(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == 0x5D {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try readValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == 0x2C {
                index += 1
                continue
            }
            guard bytes[index] == 0x5D else { throw error("expected ',' or ']'") }
            index += 1
            return .array(values)
        }
    }

    mutating func readString() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        var high: UInt8 = 0
        while index < bytes.count, bytes[index] != 0x22, bytes[index] != 0x5C, bytes[index] >= 0x20 {
            high |= bytes[index]
            index += 1
        }
        guard index < bytes.count else { throw error("unterminated string") }
        if bytes[index] == 0x22 {
            // ASCII needs no validating (and `String(validating:)` is generic: a metadata lookup a string).
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
            let text = high < 0x80 ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
            guard let text else { throw error("invalid UTF-8 in a string") }
            index += 1
            return text
        }
        var scalars = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == 0x22 {
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else { throw error("invalid UTF-8 in a string") }
                return text
            }
            guard byte >= 0x20 else { throw error("control character in a string") }
            if byte != 0x5C {
                scalars.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated string") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case 0x22, 0x5C, 0x2F: scalars.append(escape)
            case 0x62: scalars.append(0x08)
            case 0x66: scalars.append(0x0C)
            case 0x6E: scalars.append(0x0A)
            case 0x72: scalars.append(0x0D)
            case 0x74: scalars.append(0x09)
            case 0x75:
                var code = try readHex4()
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                        throw error("unpaired surrogate")
                    }
                    index += 2
                    let low = try readHex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(code) {
                    throw error("unpaired surrogate")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid escape") }
                scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw error("invalid escape")
            }
        }
    }

    mutating func readHex4() throws(JSONValue.ParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    mutating func readNumber() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        if bytes[index] == 0x2D { index += 1 }
        guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw error("expected a digit") }
        if bytes[index] == 0x30 {
            index += 1
        } else {
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        var integral = true
        if index < bytes.count, bytes[index] == 0x2E {
            integral = false
            index += 1
            guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw error("expected a digit") }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == 0x65 || bytes[index] == 0x45 {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard index < bytes.count, (0x30...0x39).contains(bytes[index]) else { throw error("expected a digit") }
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        // `-0` is no integer: as one it would be written back as `0`.
        if integral, text != "-0", let value = Int(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .number(value, text: text)
    }
}

extension JSONValue {
    /// Serialises a string as a JSON string literal, escaping what must be escaped: quotes,
    /// backslashes and control characters. Everything else, non-ASCII included, stays as is.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
