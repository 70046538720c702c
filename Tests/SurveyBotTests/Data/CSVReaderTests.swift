import Testing

@testable import SurveyBot

/// The data feed's CSV: RFC 4180 as written by spreadsheets, and every malformed file an error
/// at its line and column.
@Suite struct CSVReaderTests: CSVReading {
    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        let table = try read("a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\r\n\"two\nlines\",\r\n\r\nlast,é\n").get()
        #expect(table.columns == ["a", "b"])
        #expect(table.rows == [["x, y", "say \"hi\""], ["two\nlines", ""], ["last", "é"]])
        #expect(table.lines == [2, 3, 6])
    }

    @Test func aByteOrderMarkIsNotPartOfTheFirstColumn() throws {
        let table = try CSVReader.read([0xEF, 0xBB, 0xBF] + Array("id\n1".utf8), path: "d.csv").get()
        #expect(table.columns == ["id"])
        #expect(table.rows == [["1"]])
    }

    @Test func malformedFilesAreErrorsAtTheirPlace() {
        expectError("a,b\n1,\"open\n2,3\n", line: 2, column: 3, contains: "a quoted field is not closed")
        expectError("a,b\n1,2,3\n", line: 2, column: 1, contains: "row has 3 fields, the header 2")
        expectError("a,b\n1,x\"y\n", line: 2, column: 4, contains: "a '\"' inside a field that is not quoted")
        expectError("a,b\n\"1\"x,2\n", line: 2, column: 4, contains: "expected a comma")
        // A header error points at the column it is about, not at the start of the line.
        expectError("id,name,id\n1,2,3\n", line: 1, column: 9, contains: "names column 'id' twice")
        expectError("a,\n1,2\n", line: 1, column: 3, contains: "column 2 of the header has no name")
        // A column that looks like an answer but names no question id would never be used.
        expectError("member,answer.\nm,1\n", line: 1, column: 8, contains: "column 'answer.': a column 'answer.<id>' answers")
        expectError("a\n", line: 2, column: 1, contains: "a header but no rows")
        expectError("", line: 1, column: 1, contains: "empty")
        expectError("a\n1\r2\n", line: 2, column: 2, contains: "carriage return")
        expectError("a\n\u{0}\n", line: 2, column: 1, contains: "NUL")
    }

    @Test func invalidUTF8IsRefusedWhereItIs() {
        switch CSVReader.read(Array("a\nx".utf8) + [0xFF], path: "d.csv") {
        case .success: Issue.record("read invalid UTF-8")
        case .failure(let error): #expect(error.location.line == 2 && error.location.column == 2, "\(error)")
        }
    }

    @Test func aFieldOverTheLimitIsRefused() {
        let long = String(repeating: "x", count: CSVReader.Limits.maxFieldBytes + 1)
        expectError("a\n\(long)\n", line: 2, column: 1, contains: "longer than 64 KiB")
    }
}

/// What the CSV suites share: a file read as `d.csv`, and an error expected at its place.
protocol CSVReading {}

extension CSVReading {
    func read(_ bytes: [UInt8]) -> Result<CSVReader.Table, Diagnostic> {
        CSVReader.read(bytes, path: "d.csv")
    }

    func read(_ text: String) -> Result<CSVReader.Table, Diagnostic> {
        read(Array(text.utf8))
    }

    func expectError(
        _ text: String, line: Int, column: Int, contains message: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        switch read(text) {
        case .success(let table): Issue.record("expected an error, read \(table)", sourceLocation: sourceLocation)
        case .failure(let error):
            #expect(
                error.location == SourceLocation(origin: .file("d.csv"), line: line, column: column), "\(error)",
                sourceLocation: sourceLocation)
            #expect(error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
