import Testing

@testable import SurveyBot

/// Which recorded requests a step stands for.
@Suite struct PathPatternTests {
    private func request(_ method: String, _ target: String) -> Exchange {
        Exchange(method: method, origin: nil, target: target, requestHeaders: [], requestBody: [], response: nil, failure: nil)
    }

    @Test func aVariableMatchesAnyValueOfItsSegmentAndTheQueryIsLeftAside() {
        let pattern = PathPattern(method: "POST", path: "/survey/${session.sid}/page-${session.n}?token=${session.t}")
        #expect(pattern.matches(request("POST", "/survey/ab12/page-3?token=zz")))
        #expect(pattern.matches(request("POST", "/survey/ab12/page-3")))
        #expect(!pattern.matches(request("GET", "/survey/ab12/page-3")))
        #expect(!pattern.matches(request("POST", "/survey/ab12/other-3")))
        #expect(!pattern.matches(request("POST", "/survey/ab12/page-3/more")))
    }

    @Test func literalSegmentsMatchDecodedAndUnderTheRecordedBasePath() {
        let pattern = PathPattern(method: "GET", path: "/a%20b/c", basePath: "/v1")
        #expect(pattern.matches(request("GET", "/v1/a b/c")))
        #expect(pattern.matches(request("GET", "/v1/a%20b/c")))
        #expect(!pattern.matches(request("GET", "/a%20b/c")))
    }
}
