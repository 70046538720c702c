import Testing

@testable import SurveyEngine
@testable import SurveyJourney

private func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(Array(text.utf8)).get()
}

@Suite struct JSONPathTests {
    private let document = """
        {"survey":{"groups":[{"questions":[{"qid":"900001X1X1","title":{"en":"a"}},{"qid":"900001X1X2","title":{"en":"b"}}]},\
        {"questions":[{"qid":"900001X2X3","title":{"en":"c"}}]}]},"token":"t","n":[1,2,3],"a.b":7}
        """

    @Test func namesIndicesAndWildcardsSelectInDocumentOrder() throws {
        let value = try json(document)
        func select(_ path: String) throws -> [JSONValue] { try JSONPath(parsing: path).select(in: value) }
        #expect(try select("$.token") == [.string("t")])
        #expect(try select("token") == [.string("t")])
        #expect(try select("$.n[0]") == [.integer(1)])
        #expect(try select("$.n[-1]") == [.integer(3)])
        #expect(try select("$.n[3]").isEmpty)
        #expect(try select("$.n[*]") == [.integer(1), .integer(2), .integer(3)])
        #expect(try select("$['a.b']") == [.integer(7)])
        #expect(try select(#"$["a.b"]"#) == [.integer(7)])
        #expect(try select("$.survey.groups[*].questions[*].qid") == ["900001X1X1", "900001X1X2", "900001X2X3"].map(JSONValue.string))
        #expect(try select("$.survey.groups.*.questions[1].title.en") == [.string("b")])
        #expect(try select("$") == [value])
        #expect(try select("$.nothing.here").isEmpty)
        // A name on an array, an index on an object: nothing, not a crash.
        #expect(try select("$.n.x").isEmpty && select("$.survey[0]").isEmpty)
    }

    @Test func aPathThatIsNotOneSaysWhereItBreaks() {
        for (text, offset) in [("", 0), ("$.", 2), ("$.a[", 4), ("$.a[x]", 4), ("$.a['b", 4), ("$.a]", 3), ("$a", 1), ("$.a b", 3)] {
            #expect(throws: JSONPath.ParseError.self, "\(text)") { try JSONPath(parsing: text) }
            do {
                _ = try JSONPath(parsing: text)
            } catch {
                #expect(error.offset == offset, "\(text): \(error.reason)")
            }
        }
    }

    @Test func pathsAreEqualByTheirStepsHoweverWritten() throws {
        #expect(try JSONPath(parsing: "$.data.items") == JSONPath(names: ["data", "items"]))
        #expect(try JSONPath(parsing: "data['items']") == JSONPath(parsing: "$.data.items"))
        #expect(try JSONPath(parsing: "$.a[*]").selectsMany && !JSONPath(parsing: "$.a[0]").selectsMany)
    }

    /// LimeSurvey's REST survey: questions nested under groups, ids as strings, texts per
    /// language — read with paths, in order.
    @Test func questionsAreFoundAcrossNestedLists() throws {
        let shape = SurveyQuestion.Shape(
            list: try JSONPath(parsing: "$.survey.groups[*].questions[*]"), id: try JSONPath(parsing: "qid"),
            text: try JSONPath(parsing: "title.en"))
        let questions = try SurveyQuestion.list(from: Array(document.utf8), shape: shape).get()
        #expect(questions.map(\.id.text) == ["900001X1X1", "900001X1X2", "900001X2X3"])
        #expect(questions.map(\.text) == ["a", "b", "c"])
        // Stopping at the lists takes their elements too.
        let lists = SurveyQuestion.Shape(list: try JSONPath(parsing: "$.survey.groups[*].questions"), id: shape.id, text: shape.text)
        #expect(try SurveyQuestion.list(from: Array(document.utf8), shape: lists).get() == questions)
        let missing = SurveyQuestion.Shape(list: try JSONPath(parsing: "$.survey.pages"), id: shape.id, text: shape.text)
        #expect(
            SurveyQuestion.list(from: Array(document.utf8), shape: missing)
                == .failure(.init(description: "the questions response has no '$.survey.pages'")))
    }
}
