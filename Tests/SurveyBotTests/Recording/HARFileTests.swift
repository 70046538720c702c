import Testing

@testable import SurveyBot

/// Reading HAR 1.2 recordings: the fields `import` and `replay` need, the recorders' gaps read
/// as empty, and what is no recording refused at its line and column.
@Suite struct HARFileTests {
    static func parse(_ text: String) -> Result<HARFile, HARError> {
        HARFile.parse(Array(text.utf8), path: "walk.har")
    }

    /// Chrome's shape: pseudo-headers, `_resourceType`, a base64 body, a JSON post.
    static let chrome = """
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
          "entries": [
            {"startedDateTime": "2026-11-29T01:00:00.250Z", "time": 120.5, "_resourceType": "document",
             "request": {"method": "get", "url": "http://127.0.0.1:8080/survey/start?lang=en#top", "httpVersion": "http/1.1",
               "headers": [{"name": "Accept", "value": "text/html"}], "queryString": [{"name": "lang", "value": "en"}],
               "cookies": [], "headersSize": -1, "bodySize": 0},
             "response": {"status": 200, "statusText": "OK", "httpVersion": "http/1.1",
               "headers": [{"name": "Set-Cookie", "value": "sid=abc; Path=/"}], "cookies": [{"name": "sid", "value": "abc"}],
               "content": {"size": 5, "mimeType": "Text/HTML", "text": "PGI+aGk8L2I+", "encoding": "base64"},
               "redirectURL": "", "headersSize": -1, "bodySize": 5}, "cache": {}, "timings": {}},
            {"startedDateTime": "2026-11-29T02:00:01.000+01:00", "time": 10, "_resourceType": "fetch",
             "request": {"method": "POST", "url": "https://[::1]:8443/api", "httpVersion": "h2",
               "headers": [{"name": ":method", "value": "POST"}], "queryString": [], "cookies": [],
               "postData": {"mimeType": "application/json", "text": "{\\"a\\": 1}"}},
             "response": {"status": 201, "statusText": "", "headers": [], "cookies": [],
               "content": {"size": -1, "mimeType": "application/json"}, "_fetchedViaServiceWorker": true}}
          ]}}
        """

    @Test func readsChromesRecording() throws {
        let file = try Self.parse(Self.chrome).get()
        #expect(file.creator == "WebInspector 537.36")
        #expect(file.entries.count == 2)
        let page = file.entries[0]
        #expect(page.request.method == "GET")
        #expect(page.request.url.origin == "http://127.0.0.1:8080")
        #expect(page.request.url.target == "/survey/start?lang=en")
        #expect(page.request.header("accept") == "text/html")
        #expect(page.response.cookies == [HARField(name: "sid", value: "abc")])
        #expect(page.response.content.body.text == "<b>hi</b>")
        #expect(page.response.content.mimeType == "text/html")
        #expect(page.resourceType == "document")
        #expect(page.started == 1_795_914_000.25)
        #expect(abs((page.ended ?? 0) - 1_795_914_000.3705) < 1e-6)
        let api = file.entries[1]
        #expect(api.request.url.origin == "https://[::1]:8443")
        #expect(api.request.url.path == "/api")
        #expect(api.request.postData?.text == "{\"a\": 1}")
        #expect(api.started == 1_795_914_001)
        #expect(api.viaServiceWorker)
        guard case .absent = api.response.content.body else {
            Issue.record("a body the recorder left out is absent")
            return
        }
    }

    /// Firefox leaves out lists it has nothing for, and mitmproxy writes `+00:00`.
    @Test func readsWhatOtherRecordersLeaveOut() throws {
        let file = try Self.parse(
            """
            {"log": {"entries": [{"startedDateTime": "2026-11-29T01:00:00+00:00",
              "request": {"method": "POST", "url": "http://localhost/form",
                "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "a", "value": "1"}]}},
              "response": {"status": 302, "redirectURL": "/next", "content": {"mimeType": "", "text": "AA==", "encoding": "base64"}}}]}}
            """
        ).get()
        let entry = try #require(file.entries.first)
        #expect(entry.request.headers.isEmpty)
        #expect(entry.request.postData?.params == [HARField(name: "a", value: "1")])
        #expect(entry.request.postData?.text == nil)
        #expect(entry.response.redirectURL == "/next")
        #expect(entry.started == 1_795_914_000)
        #expect(entry.milliseconds == 0)
        guard case .binary(1) = entry.response.content.body else {
            Issue.record("a NUL byte is no text")
            return
        }
    }

    @Test func base64OfBytesThatAreNoTextIsBinary() throws {
        let file = try Self.parse(
            """
            {"log": {"entries": [{"request": {"method": "GET", "url": "http://localhost/a.png"},
              "response": {"status": 200, "content": {"mimeType": "image/png", "text": "iVBORw0KGgo=", "encoding": "base64"}}}]}}
            """
        ).get()
        guard case .binary(let count) = file.entries[0].response.content.body else {
            Issue.record("expected a binary body")
            return
        }
        #expect(count == 8)
    }

    @Test func notJSONIsAnErrorAtItsLineAndColumn() {
        let result = Self.parse("{\"log\": {\n  \"entries\": [,]\n}}")
        guard case .failure(let error) = result else {
            Issue.record("expected an error")
            return
        }
        #expect(error.description.hasPrefix("walk.har:2:15: error: not JSON, so not a HAR file: unexpected character"))
        #expect(error.description.contains("  \"entries\": [,]\n              ^"))
    }

    @Test func aMissingFieldIsNamedWithItsPlace() {
        let text = """
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "http://localhost/"}, "response": {"status": 200}},
              {"request": {"method": "GET"},
               "response": {"status": 200}}
            ]}}
            """
        guard case .failure(let error) = Self.parse(text) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.description.hasPrefix("walk.har:3:15: error: log.entries[1].request has no 'url'"))
    }

    @Test func whatIsNoHARIsRefused() {
        let cases: [(String, String)] = [
            ("[1, 2]", "walk.har:1:1: error: not a HAR file: the document is not a JSON object"),
            ("{\"logs\": {}}", "walk.har:1:1: error: not a HAR file: no 'log' member"),
            ("{\"log\": {\"pages\": []}}", "walk.har:1:9: error: not a HAR file: 'log' has no 'entries'"),
            (
                "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\": \"/relative\"}, \"response\": {\"status\": 200}}]}}",
                "walk.har:1:59: error: log.entries[0].request.url is not an absolute http:// or https:// URL"
            ),
            (
                "{\"log\": {\"entries\": [{\"request\": {\"method\": \"GET\", \"url\": \"http://h/\"}, \"response\": {\"status\": \"ok\"}}]}}",
                "walk.har:1:96: error: log.entries[0].response.status is not an HTTP status"
            ),
        ]
        for (text, expected) in cases {
            guard case .failure(let error) = Self.parse(text) else {
                Issue.record("expected an error for \(text)")
                continue
            }
            #expect(error.description.hasPrefix(expected), "\(error.description)")
        }
    }

    @Test func aFileThatCannotBeReadSaysWhy() {
        guard case .failure(let error) = HARFile.read(path: "/nonexistent/walk.har") else {
            Issue.record("expected an error")
            return
        }
        #expect(error.description == "/nonexistent/walk.har:1:1: error: cannot read the recording: no such file or directory")
    }
}
