import SurveyEngine

/// Reads a data feed's CSV (RFC 4180): a header row, then one record per row; fields separated
/// by commas, quoted with `"` when they hold commas, quotes (doubled) or line breaks; lines
/// ending in CRLF or LF; UTF-8 with or without a byte-order mark. Empty lines are skipped.
///
/// The file is input from anyone who can write it, so reading is bounded (`Limits`) and every
/// error is one `Diagnostic` at the line and column where the file goes wrong.
struct CSVReader {
    /// The bounds of a data file.
    enum Limits {
        /// 64 MiB.
        static let maxFileBytes = 64 << 20
        /// Columns of a row.
        static let maxColumns = 256
        /// One field's length in bytes: 64 KiB.
        static let maxFieldBytes = 64 << 10
        /// Rows, the header left out.
        static let maxRows = 1_000_000
    }

    /// A table read from a file: column names and rows of values, each row with the line it
    /// starts on.
    struct Table: Sendable, Hashable {
        var columns: [String]
        var rows: [[String]]
        /// The line each row starts on, from 1.
        var lines: [Int]
    }

    /// Reads `bytes` as the CSV file at `path` (the path only names it in errors).
    static func read(_ bytes: [UInt8], path: String) -> Result<Table, Diagnostic> {
        var reader = CSVReader(bytes: bytes, path: path)
        do throws(Diagnostic) {
            return .success(try reader.table())
        } catch {
            return .failure(error)
        }
    }

    private let bytes: [UInt8]
    private let path: String
    private var offset = 0
    private var line = 1
    private var column = 1

    private init(bytes: [UInt8], path: String) {
        self.bytes = bytes
        self.path = path
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    private func error(_ message: String, line: Int? = nil, column: Int? = nil) -> Diagnostic {
        Diagnostic(message, at: SourceLocation(origin: .file(path), line: line ?? self.line, column: column ?? self.column))
    }

    private mutating func table() throws(Diagnostic) -> Table {
        if bytes.count > Limits.maxFileBytes {
            throw error("the data file is larger than 64 MiB (\(Limits.maxFileBytes) bytes), the limit for a data file", line: 1, column: 1)
        }
        try checkText()
        guard let header = try record() else { throw error("the data file is empty: it needs a header row naming the columns") }
        let columns = header.fields
        var seen = Set<String>()
        for (index, name) in columns.enumerated() {
            let column = header.columns[index]
            if name.isEmpty { throw error("column \(index + 1) of the header has no name", line: header.line, column: column) }
            if !seen.insert(name).inserted {
                throw error("the header names column '\(TerminalText.escaped(name))' twice", line: header.line, column: column)
            }
            if name.hasPrefix(RespondentData.answerPrefix) {
                let id = name.dropFirst(RespondentData.answerPrefix.count)
                guard !id.isEmpty else {
                    throw error(
                        "column '\(TerminalText.escaped(name))': a column 'answer.<id>' answers the question of that id (answer.3, "
                            + "answer.q1), and this one names none", line: header.line, column: column)
                }
            }
        }
        var rows: [[String]] = []
        var lines: [Int] = []
        while let row = try record() {
            guard row.fields.count == columns.count else {
                throw error(
                    "row has \(row.fields.count) field\(row.fields.count == 1 ? "" : "s"), the header \(columns.count)",
                    line: row.line, column: 1)
            }
            if rows.count == Limits.maxRows {
                throw error("the data file has more than \(Limits.maxRows) rows, the limit", line: row.line, column: 1)
            }
            rows.append(row.fields)
            lines.append(row.line)
        }
        if rows.isEmpty { throw error("the data file has a header but no rows") }
        return Table(columns: columns, rows: rows, lines: lines)
    }

    /// Refuses what is not UTF-8 text (invalid bytes, NUL) at its place, before any field is read.
    private func checkText() throws(Diagnostic) {
        var line = 1
        var column = 1
        var index = offset
        while index < bytes.count {
            let length = PlanLimits.scalarLength(bytes, at: index)
            guard length > 0 else {
                throw error(
                    "not UTF-8 text: byte 0x\(String(bytes[index], radix: 16, uppercase: true)) is not UTF-8", line: line, column: column)
            }
            if bytes[index] == 0 { throw error("not a text file: it holds a NUL byte, here", line: line, column: column) }
            if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += length
        }
    }

    /// Moves past one byte, counting lines and columns (in Unicode scalars).
    private mutating func advance() {
        let byte = bytes[offset]
        offset += 1
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// The next record, the line it starts on and the column each field starts at; nil at the
    /// end of the file.
    private mutating func record() throws(Diagnostic) -> (fields: [String], line: Int, columns: [Int])? {
        // Empty lines between records are skipped.
        while offset < bytes.count, bytes[offset] == 0x0A || (bytes[offset] == 0x0D && next(is: 0x0A)) {
            if bytes[offset] == 0x0D { advance() }
            advance()
        }
        guard offset < bytes.count else { return nil }
        let start = line
        var fields: [String] = []
        var columns: [Int] = []
        while true {
            if fields.count == Limits.maxColumns {
                throw error("a row has more than \(Limits.maxColumns) columns, the limit")
            }
            columns.append(column)
            fields.append(try field())
            guard offset < bytes.count else { return (fields, start, columns) }
            switch bytes[offset] {
            case 0x2C:
                advance()
            case 0x0A:
                advance()
                return (fields, start, columns)
            case 0x0D:
                guard next(is: 0x0A) else { throw error("a carriage return (\\r) not followed by a line feed") }
                advance()
                advance()
                return (fields, start, columns)
            default:
                throw error("expected a comma or the end of the line after a quoted field")
            }
        }
    }

    private func next(is byte: UInt8) -> Bool {
        offset + 1 < bytes.count && bytes[offset + 1] == byte
    }

    /// One field, quoted or not, up to (not past) the comma or line end after it.
    private mutating func field() throws(Diagnostic) -> String {
        var value: [UInt8] = []
        if offset < bytes.count, bytes[offset] == 0x22 {
            let (openLine, openColumn) = (line, column)
            advance()
            while true {
                guard offset < bytes.count else {
                    throw error("a quoted field is not closed: its '\"' opens here", line: openLine, column: openColumn)
                }
                if bytes[offset] == 0x22 {
                    if next(is: 0x22) {
                        value.append(0x22)
                        advance()
                        advance()
                        continue
                    }
                    advance()
                    break
                }
                value.append(bytes[offset])
                advance()
                if value.count > Limits.maxFieldBytes { throw fieldTooLong(line: openLine, column: openColumn) }
            }
        } else {
            let (startLine, startColumn) = (line, column)
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == 0x2C || byte == 0x0A || byte == 0x0D { break }
                if byte == 0x22 { throw error("a '\"' inside a field that is not quoted (quote the field and double the '\"')") }
                value.append(byte)
                advance()
                if value.count > Limits.maxFieldBytes { throw fieldTooLong(line: startLine, column: startColumn) }
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    private func fieldTooLong(line: Int, column: Int) -> Diagnostic {
        error("a field is longer than 64 KiB (\(Limits.maxFieldBytes) bytes), the limit", line: line, column: column)
    }
}
