import SurveyEngine
import SurveyJourney

/// Reads a data feed's CSV (RFC 4180): a header row, then one record per row; fields separated
/// by commas, quoted with `"` when they hold commas, quotes (doubled) or line breaks; lines
/// ending in CRLF or LF; UTF-8 with or without a byte-order mark. Empty lines are skipped.
///
/// The file is input from anyone who can write it, so reading is bounded (`Limits`) and every
/// error is one `Diagnostic` at the line and column where the file goes wrong.
///
/// A feed can be a million rows, so the reader works on bytes, in place: each field's value
/// (quotes taken off, doubled quotes made single) is written over the file's own bytes, behind
/// the place being read, and ended by a NUL byte (no value holds one: a NUL is refused). The
/// file's buffer becomes the rows' (`DataRows`), with four bytes a row saying where each starts;
/// no `String` is made but the header's.
struct CSVReader {
    /// The bounds of a data file.
    enum Limits {
        /// 1 GiB: the rows take the file's size and eight bytes a row (`DataRows`, the lines).
        static let maxFileBytes = 1 << 30
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
        var rows: DataRows
        /// The line each row starts on, from 1.
        var lines: [UInt32]
    }

    /// Reads `bytes` as the CSV file at `path` (the path only names it in errors). The bytes
    /// become the table's rows: pass them without another reference, or they are copied first.
    static func read(_ bytes: consuming [UInt8], path: String) -> Result<Table, Diagnostic> {
        var buffer = consume bytes
        let start = buffer.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        if buffer.count > Limits.maxFileBytes { return .failure(tooLarge(path: path)) }
        let parsed: Result<Parsed, Diagnostic> = buffer.withUnsafeMutableBufferPointer { bytes in
            var reader = CSVReader(bytes: bytes, start: start, path: path)
            do throws(Diagnostic) {
                try reader.checkText()
                return .success(try reader.table())
            } catch {
                return .failure(error)
            }
        }
        switch parsed {
        case .failure(let error): return .failure(error)
        case .success(let parsed):
            buffer.removeLast(buffer.count - parsed.size)
            return .success(
                Table(
                    columns: parsed.columns, rows: DataRows(bytes: buffer, starts: parsed.starts, columnCount: parsed.columns.count),
                    lines: parsed.lines))
        }
    }

    /// The error of a file over `Limits.maxFileBytes`, at its start.
    static func tooLarge(path: String) -> Diagnostic {
        Diagnostic(
            "the data file is larger than 1 GiB (\(Limits.maxFileBytes) bytes), the limit for a data file",
            at: SourceLocation(origin: .file(path), line: 1, column: 1))
    }

    /// What a read leaves beside the buffer: the rows' bytes are its first `size`.
    private struct Parsed {
        var columns: [String]
        var starts: [UInt32]
        var lines: [UInt32]
        var size: Int
    }

    private let bytes: UnsafeMutableBufferPointer<UInt8>
    private let start: Int
    private let path: String
    /// The next byte to read.
    private var offset: Int
    /// Where the next value's byte goes: never past `offset`.
    private var written = 0
    /// The line `offset` is on, from 1, the offset that line starts at, and how many UTF-8
    /// continuation bytes are between: columns count Unicode scalars. Counted as the bytes go
    /// by, since the bytes behind `offset` are written over.
    private var line = 1
    private var lineStart: Int
    private var continuations = 0

    private init(bytes: UnsafeMutableBufferPointer<UInt8>, start: Int, path: String) {
        self.bytes = bytes
        self.start = start
        self.path = path
        offset = start
        lineStart = start
    }

    // MARK: Places

    /// A line and column, from 1.
    private struct Place {
        var line: Int
        var column: Int
    }

    /// Where `offset` is.
    private var place: Place {
        Place(line: line, column: 1 + offset - lineStart - continuations)
    }

    /// An error at `place` (the current one by default).
    private func error(_ message: String, at place: Place? = nil) -> Diagnostic {
        let place = place ?? self.place
        return Diagnostic(message, at: SourceLocation(origin: .file(path), line: place.line, column: place.column))
    }

    /// Moves past a line feed at `offset`.
    @inline(__always)
    private mutating func newLine() {
        offset += 1
        line += 1
        lineStart = offset
        continuations = 0
    }

    // MARK: Text

    /// Refuses what is not UTF-8 text (invalid bytes, NUL) at its place, before any field is
    /// read. ASCII, eight bytes at a time; the rest scalar by scalar.
    private func checkText() throws(Diagnostic) {
        let count = bytes.count
        let base = UnsafeRawPointer(bytes.baseAddress.unsafelyUnwrapped)
        var index = start
        let high: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        while index < count {
            if index + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // No byte ≥ 0x80 and no zero byte: eight ASCII characters.
                if word & high == 0, (word &- ones) & ~word & high == 0 {
                    index += 8
                    continue
                }
            }
            let length = PlanLimits.scalarLength(bytes, at: index)
            guard length > 0 else {
                throw textError("not UTF-8 text: byte 0x\(String(bytes[index], radix: 16, uppercase: true)) is not UTF-8", at: index)
            }
            if bytes[index] == 0 { throw textError("not a text file: it holds a NUL byte, here", at: index) }
            index += length
        }
    }

    /// An error at `offset` of the text not yet read: its line and column counted from the start.
    private func textError(_ message: String, at offset: Int) -> Diagnostic {
        var line = 1
        var column = 1
        for index in start..<offset {
            if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return error(message, at: Place(line: line, column: column))
    }

    // MARK: Records

    private mutating func table() throws(Diagnostic) -> Parsed {
        guard let header = try record(keepingPlaces: true) else {
            throw error("the data file is empty: it needs a header row naming the columns")
        }
        var columns: [String] = []
        var from = 0
        for end in header.valueEnds {
            columns.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[from..<end]), as: UTF8.self))
            from = end + 1
        }
        var seen = Set<String>()
        for (index, name) in columns.enumerated() {
            // On the record's first line, at the column where the field starts on its own.
            let column = Place(line: header.line, column: header.fieldColumns[index])
            if name.isEmpty { throw error("column \(index + 1) of the header has no name", at: column) }
            if !seen.insert(name).inserted {
                throw error("the header names column '\(TerminalText.escaped(name))' twice", at: column)
            }
            if name.hasPrefix(RespondentData.answerPrefix) {
                let id = name.dropFirst(RespondentData.answerPrefix.count)
                guard !id.isEmpty else {
                    throw error(
                        "column '\(TerminalText.escaped(name))': a column 'answer.<id>' answers the question of that id (answer.3, "
                            + "answer.q1), and this one names none", at: column)
                }
            }
        }
        // The rows' values go where the header's were.
        written = 0
        var starts: [UInt32] = []
        var lines: [UInt32] = []
        // A first guess from the header's length, so that the arrays seldom grow.
        let guess = min(Limits.maxRows, (bytes.count - offset) / max(1, offset - start) + 1)
        starts.reserveCapacity(guess)
        lines.reserveCapacity(guess)
        while true {
            let rowStart = written
            guard let row = try record() else { break }
            guard row.fields == columns.count else {
                throw error(
                    "row has \(row.fields) field\(row.fields == 1 ? "" : "s"), the header \(columns.count)",
                    at: Place(line: row.line, column: 1))
            }
            if starts.count == Limits.maxRows {
                throw error("the data file has more than \(Limits.maxRows) rows, the limit", at: Place(line: row.line, column: 1))
            }
            starts.append(UInt32(rowStart))
            lines.append(UInt32(row.line))
        }
        if starts.isEmpty { throw error("the data file has a header but no rows") }
        return Parsed(columns: columns, starts: starts, lines: lines, size: written)
    }

    /// A record read: how many fields and the line it starts on; for the header, where each
    /// field starts (its column) and where its value ends in the buffer.
    private struct Record {
        var fields: Int
        var line: Int
        var fieldColumns: [Int] = []
        var valueEnds: [Int] = []
    }

    /// The next record, its values written at `written`, each ended by a NUL; nil at the end of
    /// the file. With `keepingPlaces` (the header), each field's column and value are kept.
    private mutating func record(keepingPlaces: Bool = false) throws(Diagnostic) -> Record? {
        let count = bytes.count
        // Empty lines between records are skipped.
        while offset < count, bytes[offset] == 0x0A || (bytes[offset] == 0x0D && offset + 1 < count && bytes[offset + 1] == 0x0A) {
            if bytes[offset] == 0x0D { offset += 1 }
            newLine()
        }
        guard offset < count else { return nil }
        var record = Record(fields: 0, line: line)
        while true {
            if record.fields == Limits.maxColumns {
                throw error("a row has more than \(Limits.maxColumns) columns, the limit")
            }
            if keepingPlaces { record.fieldColumns.append(place.column) }
            try field()
            if keepingPlaces { record.valueEnds.append(written) }
            record.fields += 1
            guard offset < count else {
                endValue()
                return record
            }
            switch bytes[offset] {
            case 0x2C:
                offset += 1
                endValue()
            case 0x0A:
                newLine()
                endValue()
                return record
            case 0x0D:
                guard offset + 1 < count, bytes[offset + 1] == 0x0A else {
                    throw error("a carriage return (\\r) not followed by a line feed")
                }
                offset += 1
                newLine()
                endValue()
                return record
            default:
                throw error("expected a comma or the end of the line after a quoted field")
            }
        }
    }

    /// One field, quoted or not, up to (not past) the comma or line end after it; its value
    /// written at `written` (`endValue` ends it).
    private mutating func field() throws(Diagnostic) {
        let count = bytes.count
        let valueStart = written
        let fieldStart = place
        if offset < count, bytes[offset] == 0x22 {
            offset += 1
            while true {
                // A run of plain bytes, each moved back to its place in the value.
                while offset < count {
                    let byte = bytes[offset]
                    if byte == 0x22 { break }
                    bytes[written] = byte
                    written += 1
                    if byte == 0x0A {
                        newLine()
                    } else {
                        offset += 1
                        continuations &+= (byte >> 6) == 2 ? 1 : 0
                    }
                    if written - valueStart > Limits.maxFieldBytes { throw fieldTooLong(at: fieldStart) }
                }
                guard offset < count else { throw error("a quoted field is not closed: its '\"' opens here", at: fieldStart) }
                if offset + 1 < count, bytes[offset + 1] == 0x22 {
                    bytes[written] = 0x22
                    written += 1
                    offset += 2
                    continue
                }
                offset += 1
                break
            }
        } else {
            while offset < count {
                let byte = bytes[offset]
                if byte == 0x2C || byte == 0x0A || byte == 0x0D { break }
                if byte == 0x22 { throw error("a '\"' inside a field that is not quoted (quote the field and double the '\"')") }
                bytes[written] = byte
                written += 1
                offset += 1
                continuations &+= (byte >> 6) == 2 ? 1 : 0
                if written - valueStart > Limits.maxFieldBytes { throw fieldTooLong(at: fieldStart) }
            }
        }
    }

    /// The NUL after a value, once its separator is read: the value is shorter than what it
    /// was read from by that separator (or its quotes), and the rows' values start where the
    /// header's did, so the NUL goes behind `offset` — but for a header alone without a final
    /// line break, whose last NUL is not needed (its values' ends are kept).
    @inline(__always)
    private mutating func endValue() {
        if written < bytes.count { bytes[written] = 0 }
        written += 1
    }

    private func fieldTooLong(at place: Place) -> Diagnostic {
        error("a field is longer than 64 KiB (\(Limits.maxFieldBytes) bytes), the limit", at: place)
    }
}
