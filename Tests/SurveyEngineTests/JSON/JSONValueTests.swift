import Testing

@testable import SurveyEngine
@testable import SurveyJourney

@Suite struct JSONValueTests {
    @Test func readsEveryKindOfValue() throws {
        let text = #" {"a": [1, -2, 3.5, 1e3, true, false, null], "s": "x\"\\\/\n\u00e9\ud83d\ude00", "o": {}} "#
        let value = try JSONValue.parse(Array(text.utf8)).get()
        #expect(value["a"] == .array([.integer(1), .integer(-2), .number(3.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(value["s"] == .string("x\"\\/\né😀"))
        #expect(value["o"] == .object([]))
    }

    @Test(arguments: ["", "[1,]", "{\"a\" 1}", "[1 2]", "01", "\"\u{1}\"", "[\"\\ud800\"]", "tru", "1.", "[1]x", "{\"a\":1,}", "\"abc"])
    func rejectsWhatIsNotJSON(_ text: String) {
        if case .success(let value) = JSONValue.parse(Array(text.utf8)) {
            Issue.record("accepted \(text) as \(value)")
        }
    }

    @Test func limitsNesting() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSONValue.parse(Array(deep.utf8)).get()) == nil)
    }

    @Test func quotesWhatMustBeQuoted() throws {
        let original = "a\"b\\c\nd\u{1}é"
        let quoted = JSONValue.quoted(original)
        #expect(try JSONValue.parse(Array(quoted.utf8)).get() == .string(original))
    }

    @Test func questionsFollowTheSurveyContract() throws {
        #expect(try SurveyQuestion.list(from: Array(#"[{"id":1,"question":"a","x":2}]"#.utf8)).get() == [SurveyQuestion(id: 1, text: "a")])
        // Ids as the API gives them: a string is kept as one, and told apart from a number.
        let strings = try SurveyQuestion.list(from: Array(#"[{"id":"q1","question":"a"},{"id":"900001X1X2","question":"b"}]"#.utf8)).get()
        #expect(strings.map(\.id) == [QuestionID("q1"), QuestionID("900001X1X2")])
        #expect(strings.allSatisfy { !$0.id.isInteger })
        #expect(try SurveyQuestion.list(from: Array(#"[{"id":"1","question":"a"}]"#.utf8)).get().first?.id.isInteger == false)
        for bad in [
            #"{"id":1}"#, "[]", #"[{"question":"a"}]"#, #"[{"id":"","question":"a"}]"#, #"[{"id":1.5,"question":"a"}]"#,
            #"[{"id":"a\r\nX-Evil: 1","question":"a"}]"#, #"[{"id":1,"question":"a"},{"id":1,"question":"b"}]"#,
            #"[{"id":1,"question":"a"},{"id":"1","question":"b"}]"#,
        ] {
            if case .success = SurveyQuestion.list(from: Array(bad.utf8)) { Issue.record("accepted \(bad)") }
        }
    }
}
