import SurveyEngine

/// A data feed's file as a plan read it: where it is, how it is shown, the line each row starts
/// on (for errors), and a hash of its bytes (for the plan digest). Its rows go to the engine
/// as `RespondentData`; its values are secrets, never shown.
struct DataFile: Sendable, Hashable {
    /// The path the file was read from: relative paths resolved against the plan's folder.
    var path: String
    /// The path as shown: as the plan wrote it, `${NAME}` for parts from the environment.
    var shownPath: String
    /// The path as errors name it: as read, or as shown when any of it came from the environment.
    var errorPath: String
    /// The line each row starts on, from 1 (32 bits: a feed's rows take little beside their values).
    var lines: [UInt32]
    /// `sha256:` and the hexadecimal SHA-256 of the file's bytes.
    var digest: String

    /// Where the value of column `column` (from 0) of row `row` (from 0, in the whole feed)
    /// starts in the file: its line and column (Unicode scalars, from 1), at its opening quote
    /// when quoted. The file is read again, for an error: the rows kept none of its places. The
    /// row's first line, column 1, when the file cannot be read again.
    func location(ofColumn column: Int, row: Int) -> SourceLocation {
        let line = row < lines.count ? Int(lines[row]) : 1
        var location = SourceLocation(origin: .file(errorPath), line: line, column: 1)
        guard case .success(let bytes) = FileAccess.read(path, upTo: CSVReader.Limits.maxFileBytes) else { return location }
        var offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var at = 1
        while at < line, offset < bytes.count {
            if bytes[offset] == 0x0A { at += 1 }
            offset += 1
        }
        var lineStart = offset
        var field = 0
        var quoted = false
        while offset < bytes.count, field < column {
            let byte = bytes[offset]
            if byte == 0x22 {
                quoted.toggle()
            } else if byte == 0x0A {
                location.line += 1
                lineStart = offset + 1
            } else if byte == 0x2C, !quoted {
                field += 1
            }
            offset += 1
        }
        location.column = 1 + bytes[lineStart..<offset].filter { $0 & 0xC0 != 0x80 }.count
        return location
    }

    /// Where `written` is, read from the plan at `planPath`: an absolute path as it is, a
    /// relative one from the plan's folder.
    static func resolve(_ written: String, planPath: String) -> String {
        if written.hasPrefix("/") { return written }
        guard let slash = planPath.lastIndex(of: "/") else { return written }
        return String(planPath[...slash]) + written
    }
}
