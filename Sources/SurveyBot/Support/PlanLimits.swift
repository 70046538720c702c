import Foundation

/// The limits that keep reading a plan bounded in time, memory, stack and output, whatever the
/// file holds: a plan is input from anyone who can write a file or a CI variable.
enum PlanLimits {
    /// A plan file's size: 1 MiB, a hundred times the largest real plan.
    static let maxFileBytes = 1 << 20
    /// A line's length in bytes: 64 KiB.
    static let maxLineBytes = 64 << 10
    /// How deep blocks may nest (a key's block, a list, a list item's mapping): 64 levels.
    static let maxDepth = 64
    /// How many diagnostics are printed; the rest are counted ("and 80 more errors").
    static let maxPrintedErrors = 20

    /// Why `bytes` are not the text of a plan, at the place the reason begins: a NUL byte or
    /// invalid UTF-8 ("not a text plan"), or more than `maxFileBytes` bytes. Nil when they are.
    static func textProblem(_ bytes: [UInt8], path: String) -> Diagnostic? {
        var position = TextPosition()
        var offset = 0
        while offset < bytes.count {
            let length = scalarLength(bytes, at: offset)
            if offset + max(length, 1) > maxFileBytes {
                return Diagnostic(
                    "the plan is larger than 1 MiB (\(maxFileBytes) bytes), the limit for a plan file; it goes on past here",
                    at: position.location(path))
            }
            guard length > 0 else {
                return Diagnostic(
                    "not a text plan: byte 0x\(String(bytes[offset], radix: 16, uppercase: true)) is not UTF-8 text",
                    at: position.location(path))
            }
            if bytes[offset] == 0 {
                return Diagnostic("not a text plan: it holds a NUL byte, here", at: position.location(path))
            }
            position.advance(over: bytes[offset])
            offset += length
        }
        return nil
    }

    /// A line and column as `PlanLines` counts them: lines end at `\n`, `\r\n` or `\r`;
    /// columns count Unicode scalars.
    private struct TextPosition {
        var line = 1
        var column = 1
        var previousWasCR = false

        mutating func advance(over leadByte: UInt8) {
            switch leadByte {
            case UInt8(ascii: "\n"):
                if !previousWasCR { line += 1 }
                column = 1
                previousWasCR = false
            case UInt8(ascii: "\r"):
                line += 1
                column = 1
                previousWasCR = true
            default:
                column += 1
                previousWasCR = false
            }
        }

        func location(_ path: String) -> SourceLocation {
            SourceLocation(origin: .file(path), line: line, column: column)
        }
    }

    /// The length of the well-formed UTF-8 sequence at `offset` (1 to 4), or 0 when the bytes
    /// there are not one (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
    static func scalarLength<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at offset: Int) -> Int where Bytes.Index == Int {
        let lead = bytes[offset]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: return 0
        }
        guard offset + length <= bytes.count else { return 0 }
        guard (low...high).contains(bytes[offset + 1]) else { return 0 }
        for index in (offset + 2)..<(offset + length) where !(0x80...0xBF).contains(bytes[index]) { return 0 }
        return length
    }

    /// Where a line passes `maxLineBytes`: the 0-based index of the scalar that crosses it, or
    /// nil for a line within the limit.
    static func overlongLineIndex(_ scalars: [Unicode.Scalar]) -> Int? {
        guard scalars.count > maxLineBytes / 4 else { return nil }
        var bytes = 0
        for (index, scalar) in scalars.enumerated() {
            bytes += UTF8.width(scalar)
            if bytes > maxLineBytes { return index }
        }
        return nil
    }
}
