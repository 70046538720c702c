import Testing

@testable import SurveyBot
@testable import SurveyWire

/// A response's shape: values left aside, what a replay must see again.
@Suite struct ResponseShapeTests {
    private func response(_ body: String?, type: String? = "application/json", truncated: Bool = false) -> Exchange.Response {
        Exchange.Response(
            status: 200, headers: type.map { [HTTPHeader(name: "Content-Type", value: $0)] } ?? [], body: body.map { Array($0.utf8) },
            bodyTruncated: truncated)
    }

    @Test func jsonOfOtherValuesHasTheSameShape() {
        let recorded = ResponseShape(response(#"{"token": "abc", "items": [{"id": 1}, {"id": 2}], "ok": true}"#))
        let replayed = ResponseShape(response(#"{"token": "xyz", "items": [{"id": 9}], "ok": false}"#))
        #expect(recorded.differences(from: replayed) == nil)
        #expect(recorded == replayed)
    }

    @Test func jsonThatLostAMemberOrChangedAKindIsNamedByPath() {
        let recorded = ResponseShape(response(#"{"token": "abc", "count": 2}"#))
        let replayed = ResponseShape(response(#"{"error": "expired", "count": "2"}"#))
        #expect(recorded.differences(from: replayed) == ["$.count: number → string", "$.token missing", "$.error added"])
    }

    @Test func htmlIsItsTitleAndItsFormFieldsNames() {
        let page = """
            <html><head><title>  Survey
              page 1 </title></head><body><form><input type="hidden" name="csrf" value="t1">
            <select name="q1"><option>a</option></select><textarea name="q2"></textarea><inputs name="no"></form></body></html>
            """
        let shape = ResponseShape(response(page, type: "text/html; charset=utf-8"))
        #expect(shape == .html(title: "Survey page 1", fields: ["csrf", "q1", "q2"]))
        let error = ResponseShape(response("<html><title>Error</title><form><input name='csrf'></form></html>", type: "text/html"))
        #expect(shape.differences(from: error) == ["title 'Survey page 1' → 'Error'", "form fields q1, q2 missing"])
    }

    @Test func anotherBodyIsItsContentTypeAndABodyNotRecordedIsNotCompared() {
        #expect(
            ResponseShape(response("a,b", type: "text/csv")).differences(from: ResponseShape(response("{}", type: "application/json")))
                != nil)
        #expect(ResponseShape(response(nil)).differences(from: ResponseShape(response("{}"))) == nil)
        #expect(ResponseShape(response("{\"a\":", truncated: true)) == .unknown)
        #expect(ResponseShape(response("")) == .empty)
    }

    @Test func jsonWithoutAContentTypeIsReadByItsFirstCharacter() {
        #expect(ResponseShape(response(" [1, 2]", type: nil)) == .json(["$: array", "$[*]: number"]))
    }
}
