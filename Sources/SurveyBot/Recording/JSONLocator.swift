import SurveyJourney

/// Where something is in a JSON file's bytes, for errors that name a line and column: a byte
/// offset as a line, a column and the line's text; a path of member names and indices as the
/// byte offset of its value. `JSONValue` keeps no positions, so the path is found again by a
/// scan of a document already known to parse.
enum JSONLocator {
    /// One step of a path: a member by name, or an element by index.
    enum Step: Sendable, Hashable {
        case name(String)
        case index(Int)
    }

    /// A line longer than this is not quoted under an error: a minified HAR is one line of
    /// megabytes.
    static let maxQuotedLine = 4096

    /// The 1-based line and column (in characters) of byte `offset`, and the line's text when
    /// it is short enough to quote.
    static func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int, text: String?) {
        let offset = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < offset {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            } else if bytes[index] == 0x0D {
                line += 1
                if index + 1 < offset, bytes[index + 1] == 0x0A { index += 1 }
                lineStart = index + 1
            }
            index += 1
        }
        // Characters, not bytes: continuation bytes of UTF-8 do not start one.
        let column = 1 + bytes[lineStart..<offset].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        var lineEnd = offset
        while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
        let text = lineEnd - lineStart <= maxQuotedLine ? String(decoding: bytes[lineStart..<lineEnd], as: UTF8.self) : nil
        return (line, column, text)
    }

    /// The byte offset where the value at `path` starts in the JSON document `bytes`; as far as
    /// the path goes when a step is missing (the object that lacks a member), 0 for the root.
    static func offset(of path: [Step], in bytes: [UInt8]) -> Int {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        for step in path {
            let start = scanner.index
            let found: Bool
            switch step {
            case .name(let name): found = scanner.enterMember(name)
            case .index(let index): found = scanner.enterElement(index)
            }
            guard found else { return start }
            scanner.skipWhitespace()
        }
        return scanner.index
    }

    /// A cursor over a well-formed document that skips values without building them.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        /// Moves to the value of member `name` (its last one) of the object here.
        mutating func enterMember(_ name: String) -> Bool {
            guard index < bytes.count, bytes[index] == 0x7B else { return false }
            let objectStart = index
            index += 1
            var found: Int?
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == 0x22 else { break }
                let key = readString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == 0x3A else { break }
                index += 1
                skipWhitespace()
                if key == name { found = index }
                skipValue()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == 0x2C else { break }
                index += 1
            }
            index = found ?? objectStart
            return found != nil
        }

        /// Moves to element `position` of the array here.
        mutating func enterElement(_ position: Int) -> Bool {
            guard index < bytes.count, bytes[index] == 0x5B else { return false }
            let arrayStart = index
            index += 1
            for _ in 0..<position {
                skipWhitespace()
                skipValue()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == 0x2C else {
                    index = arrayStart
                    return false
                }
                index += 1
            }
            skipWhitespace()
            return true
        }

        /// Reads a string here, its escapes decoded as `JSONValue` decodes them.
        mutating func readString() -> String {
            let start = index
            index += 1
            while index < bytes.count, bytes[index] != 0x22 {
                index += bytes[index] == 0x5C ? 2 : 1
            }
            index = min(index + 1, bytes.count)
            if case .success(.string(let text)) = JSONValue.parse(bytes[start..<index]) { return text }
            return ""
        }

        /// Skips the value here: a string, an object or array with all it holds, or a literal.
        mutating func skipValue() {
            guard index < bytes.count else { return }
            switch bytes[index] {
            case 0x22:
                index += 1
                while index < bytes.count, bytes[index] != 0x22 { index += bytes[index] == 0x5C ? 2 : 1 }
                index = min(index + 1, bytes.count)
            case 0x7B, 0x5B:
                var depth = 0
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == 0x22 {
                        skipValue()
                        continue
                    }
                    if byte == 0x7B || byte == 0x5B { depth += 1 }
                    if byte == 0x7D || byte == 0x5D {
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return
                        }
                    }
                    index += 1
                }
            default:
                while index < bytes.count, ![0x2C, 0x7D, 0x5D, 0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            }
        }
    }
}
