import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

/// A data feed's compact rows: values made on demand from one buffer, and a shard's share of
/// the feed, which takes exactly the rows the whole feed would give that shard.
@Suite struct DataRowsTests {
    @Test func valuesAreMadeFromOneBufferWhenAsked() {
        let rows = DataRows([["m1", "", "日本 \u{1F600}"], ["", "x,\"y\"\n", ""]])
        #expect(rows.count == 2)
        #expect(rows.columnCount == 3)
        #expect(rows[0] == ["m1", "", "日本 \u{1F600}"])
        #expect(rows[1] == ["", "x,\"y\"\n", ""])
        #expect(rows.value(row: 1, column: 1) == "x,\"y\"\n")
        #expect(rows.value(row: 0, column: 2) == "日本 \u{1F600}")
        #expect(rows == [["m1", "", "日本 \u{1F600}"], ["", "x,\"y\"\n", ""]])
        #expect(DataRows([]).isEmpty)
    }

    @Test func rowsLaidOutByAReaderAreTheSameAsRowsOfStrings() {
        let bytes = Array("a\0b\0\0c\0".utf8)
        let laidOut = DataRows(bytes: bytes, starts: [0, 4], columnCount: 2)
        #expect(laidOut == DataRows([["a", "b"], ["", "c"]]))
        #expect(Array(laidOut) == [["a", "b"], ["", "c"]])
    }

    @Test func keepingRowsKeepsThemInOrder() {
        let rows = DataRows((0..<7).map { ["r\($0)", "\($0 * $0)"] })
        #expect(rows.keepingRows { $0 % 3 == 1 } == [["r1", "1"], ["r4", "16"]])
        #expect(rows.keepingRows { _ in false }.isEmpty)
    }

    /// Every order gives a shard only rows of its own share, so a shard that holds only its
    /// share gives each respondent the row the whole feed would.
    @Test func aShardsShareGivesEveryRespondentTheRowOfTheWholeFeed() {
        for order in DataOrder.allCases {
            let whole = RespondentData(columns: ["a"], rows: (0..<11).map { ["r\($0)"] }, order: order)
            for count in 1...4 {
                for index in 1...count {
                    let shard = Shard(index: index, count: count)
                    let share = whole.share(for: shard)
                    #expect(share.rows.count == shard.count(of: 11))
                    #expect(share.totalRows == 11)
                    for number in stride(from: index - 1, to: 40, by: count) {
                        let fromWhole = whole.row(forRespondent: number, shard: shard, seed: 5).map { whole.rows[$0] }
                        let fromShare = share.row(forRespondent: number, shard: shard, seed: 5).map { share.rows[$0] }
                        #expect(fromWhole == fromShare, "\(order) \(shard) respondent \(number)")
                    }
                }
            }
        }
    }

    @Test func aProblemInAShareNamesItsRowInTheFeed() {
        var configuration = RunConfiguration(load: .closed(respondents: 1), seed: 1)
        configuration.api.headers = [HTTPHeader(name: "X-Member", value: "${row.member}")]
        let data = RespondentData(columns: ["member"], rows: [["ok"], ["ok"], ["ok"], ["ok"], ["bad\n"]])
        #expect(data.problems(for: configuration).map(\.row) == [4])
        #expect(data.share(for: Shard(index: 1, count: 2)).problems(for: configuration).map(\.row) == [4])
        #expect(data.share(for: Shard(index: 2, count: 2)).problems(for: configuration).isEmpty)
        let problem = data.problems(for: configuration).first
        #expect(problem?.description == "column 'member' holds a line feed (\\n), which cannot go in the header X-Member")
    }

    /// A row's answer cells go where `${answer}` goes: in a header, they hold no line end.
    @Test func anAnswerCellThatGoesInAHeaderHoldsNoLineEnd() {
        var configuration = RunConfiguration(load: .closed(respondents: 1), seed: 1)
        configuration.api.headers = [HTTPHeader(name: "X-Answer", value: "${answer}")]
        let data = RespondentData(columns: ["answer.q1"], rows: [["fine"], ["a\r\nHost: evil"]])
        #expect(data.problems(for: configuration).map(\.row) == [1])
        #expect(data.problems(for: configuration).first?.description.contains("cannot go in the header X-Answer") == true)
        configuration.api.headers = [HTTPHeader(name: "X-Answer", value: "fixed")]
        #expect(data.problems(for: configuration).isEmpty, "in a body, the cell is escaped")
    }

    @Test func shardsHoldingTheirShareTakeTheRowsOfTheWholeFeed() async throws {
        var rowsSeen: [[String]] = []
        for index in 1...2 {
            let shard = Shard(index: index, count: 2)
            var configuration = RunConfiguration(load: .closed(respondents: 10), concurrency: 2, seed: 1, shard: shard)
            configuration.api.questions = .init(method: "GET", path: "/q/${row.a}")
            configuration.data = RespondentData(columns: ["a"], rows: (0..<5).map { ["r\($0)"] }, order: .unique).share(for: shard)
            let transport = ScriptedTransport(survey())
            let result = await (try RunCoordinator(configuration: configuration, target: target, transport: transport)).run()
            #expect(result.stoppedBy == .data)
            rowsSeen.append(transport.sent.filter { $0.method == "GET" }.map(\.path).sorted())
        }
        #expect(rowsSeen == [["/q/r0", "/q/r2", "/q/r4"], ["/q/r1", "/q/r3"]])
    }
}
