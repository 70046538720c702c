import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// The byte-level reader at its edges: byte-order marks with CRLF, quotes at a value's ends,
/// line breaks and carriage returns inside quotes, files without a final line break, and the
/// places of errors after multi-line values and multi-byte characters — where the values it has
/// written over the file's bytes could mislead a reader that looked back.
@Suite struct CSVReaderEdgeCaseTests: CSVReading {
    @Test func aByteOrderMarkWithCRLFLinesAndQuotedHeaders() throws {
        let table = try read([0xEF, 0xBB, 0xBF] + Array("\"id\",name\r\n1,\"a\r\nb\"\r\n\r\n2,c\r\n".utf8)).get()
        #expect(table.columns == ["id", "name"])
        #expect(table.rows == [["1", "a\r\nb"], ["2", "c"]])
        #expect(table.lines == [2, 5])
    }

    @Test func quotesAtAValuesEndsAndEmptyQuotedValues() throws {
        let table = try read("a,b,c\n\"\"\"\",\"\",\"\"\"x\"\"\"\n\"\"\"\"\"\",,\"x\"\"\"\"y\"\n").get()
        #expect(table.rows == [["\"", "", "\"x\""], ["\"\"", "", "x\"\"y"]])
    }

    @Test func aCarriageReturnInsideQuotesIsKept() throws {
        #expect(try read("a\n\"x\ry\"\n").get().rows == [["x\ry"]])
    }

    @Test func theLastRowNeedsNoLineBreak() throws {
        #expect(try read("a,b\n1,2").get().rows == [["1", "2"]])
        #expect(try read("a,b\n1,").get().rows == [["1", ""]])
        #expect(try read("a,b\n1,\"\"").get().rows == [["1", ""]])
        #expect(try read("a\n\"x\"").get().rows == [["x"]])
        // A header alone, without a line break: its last value's end is kept without room for more.
        expectError("a,bc", line: 1, column: 5, contains: "a header but no rows")
    }

    @Test func valuesKeepEveryByteButNUL() throws {
        let table = try read("a,b\n\u{7F}\t é,\"日本, \u{1F600}\"\n").get()
        #expect(table.rows == [["\u{7F}\t é", "日本, \u{1F600}"]])
    }

    @Test func errorsAfterMultiLineValuesAreOnTheirOwnLine() {
        expectError("a,b\n\"x\ny\",1,2\n", line: 2, column: 1, contains: "row has 3 fields, the header 2")
        expectError("a\n\"x\ny\"\nq\"\n", line: 4, column: 2, contains: "a '\"' inside a field that is not quoted")
        expectError("a,b\n1,\"x\ny\"z\n", line: 3, column: 3, contains: "expected a comma")
        expectError("a\n\"x\ny\nz", line: 2, column: 1, contains: "a quoted field is not closed")
        expectError("a,b\n1,\"x\ny\"\r3\n", line: 3, column: 3, contains: "carriage return")
        // A header record over two lines: an error about a column is on the record's first line.
        expectError("\"x\ny\",x,\"x\ny\"\n1,2,3\n", line: 1, column: 6, contains: "twice")
    }

    @Test func columnsCountCharactersNotBytes() {
        expectError("a,b\né,x\"\n", line: 2, column: 4, contains: "a '\"' inside a field that is not quoted")
        expectError("a,b\n\u{1F600}日,\"x\"y\n", line: 2, column: 7, contains: "expected a comma")
        expectError("é,a,é\n1,2,3\n", line: 1, column: 5, contains: "names column 'é' twice")
        expectError("a\n\"é\né\ré\"\n\"é", line: 4, column: 1, contains: "a quoted field is not closed")
    }

    @Test func aByteOrderMarkIsNoColumn() {
        switch read([0xEF, 0xBB, 0xBF] + Array("id,id\n1,2\n".utf8)) {
        case .success: Issue.record("read a header that names a column twice")
        case .failure(let error): #expect(error.location.line == 1 && error.location.column == 4, "\(error)")
        }
    }

    @Test func emptyLinesAreSkippedAndCountedBeforeAnError() {
        expectError("\n\r\n\n", line: 4, column: 1, contains: "empty")
        expectError("a\n\n\r\n", line: 4, column: 1, contains: "a header but no rows")
        expectError("a\n1\n\n\r\n1,2\n", line: 5, column: 1, contains: "row has 2 fields")
    }

    @Test func theColumnAndFieldLimitsHold() {
        let wide = (0...CSVReader.Limits.maxColumns).map { "c\($0)" }.joined(separator: ",")
        expectError(wide + "\n", line: 1, column: wide.count - 3, contains: "more than 256 columns")
        let long = String(repeating: "y", count: CSVReader.Limits.maxFieldBytes + 1)
        expectError("a,b\n1,\"x\n\(long)\"\n", line: 2, column: 3, contains: "longer than 64 KiB")
        // Exactly at the limit, a value is read.
        let most = String(repeating: "z", count: CSVReader.Limits.maxFieldBytes)
        #expect((try? read("a\n\(most)\n").get().rows[0]) == [most])
    }

    @Test func invalidUTF8AndNULAreFoundPastLongASCIIRuns() {
        let ascii = String(repeating: "abcdefgh", count: 5)
        switch read(Array("a\n\(ascii)\n\(ascii)".utf8) + [0xC3, 0x28]) {
        case .success: Issue.record("read invalid UTF-8")
        case .failure(let error): #expect(error.location.line == 3 && error.location.column == 41, "\(error)")
        }
        expectError("a\n\(ascii)\u{0}x\n", line: 2, column: 41, contains: "NUL")
        expectError("a\n\u{1F600}\(ascii)\u{0}\n", line: 2, column: 42, contains: "NUL")
    }

    /// Tables of awkward values, written with every way of quoting and ending lines, read back
    /// as they were, each row at its line.
    @Test func randomTablesReadBackAsWritten() throws {
        var random = SplitMix64(seed: 30)
        let pieces = ["a", "é", ",", "\"", "\n", "\r\n", "\r", " ", "日本", "\u{1F600}", "x\"y", "", "0"]
        for round in 0..<300 {
            let columns = Int(random.next() % 4) + 1
            let rowCount = Int(random.next() % 6) + 1
            let crlf = random.next() % 2 == 0
            let bom = random.next() % 4 == 0
            let header = (0..<columns).map { "c\($0)" }
            var rows: [[String]] = []
            var text = bom ? "\u{FEFF}" : ""
            var lines: [UInt32] = []
            var line = 2
            text += header.joined(separator: ",") + (crlf ? "\r\n" : "\n")
            for _ in 0..<rowCount {
                if random.next() % 5 == 0 {
                    text += crlf ? "\r\n" : "\n"
                    line += 1
                }
                var row: [String] = []
                var fields: [String] = []
                for _ in 0..<columns {
                    let value = (0..<Int(random.next() % 4)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
                    row.append(value)
                    let needsQuotes = value.utf8.contains { [0x2C, 0x22, 0x0D, 0x0A].contains($0) }
                    if needsQuotes || random.next() % 3 == 0 {
                        fields.append("\"" + value.replacing("\"", with: "\"\"") + "\"")
                    } else {
                        fields.append(value)
                    }
                }
                // A single empty field would be an empty line: quote it.
                if columns == 1 && fields[0].isEmpty { fields[0] = "\"\"" }
                rows.append(row)
                lines.append(UInt32(line))
                line += row.joined().utf8.filter { $0 == 0x0A }.count + 1
                text += fields.joined(separator: ",") + (crlf ? "\r\n" : "\n")
            }
            if random.next() % 3 == 0 { text.removeLast() }
            let table = try read(text).get()
            #expect(table.columns == header, "round \(round)")
            #expect(table.rows == DataRows(rows), "round \(round): \(text.debugDescription)")
            #expect(table.lines == lines, "round \(round): \(text.debugDescription)")
        }
    }
}
