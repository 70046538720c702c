import Synchronization
import Testing

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyTestSupport
@testable import SurveyWire

/// The one send-time rule for what a value may put into a request's head, whatever gave it: a
/// header value filled in from a template holding CR, LF, NUL or another control character
/// fails its attempt as `invalid_request` and nothing is sent; a path's values are
/// percent-encoded; a cookie holding one is never kept, whichever protocol set it. Each
/// source's own check (a capture's, a question field's, a data row's, the plan's) runs
/// earlier: these tests hand the values in past them, so that the rule at the head is what
/// holds.
@Suite struct SendTimeHeaderRuleTests {
    static let hostile = ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b", "a\u{1B}b", "a\u{7F}"]

    /// A login capturing a token, the questions, and a submit per question whose path and
    /// headers take a value of every kind a template gives a head.
    static let journey = Journey([
        JourneyStep(
            .login, call: .init(method: "POST", path: "/session"),
            captures: [.init(name: "token", source: .json(JSONPath(names: ["token"])))]
        ),
        JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
        JourneyStep(
            .submit, call: .init(method: "POST", path: "/q/${question.gid}/${answer}/${row.a}"),
            headers: [
                HTTPHeader(name: "X-Row", value: "r-${row.a}"), HTTPHeader(name: "X-Token", value: "${session.token}"),
                HTTPHeader(name: "X-Group", value: "${question.gid}"), HTTPHeader(name: "X-Answer", value: "${answer}"),
                HTTPHeader(name: "X-Label", value: "${answer.label}"), HTTPHeader(name: "Cookie", value: "c=${row.a}"),
            ], runs: .perQuestion),
    ])

    /// The submit's head with every value `fine` but the one of `source`, which is `value`.
    static func submitHead(_ source: String, _ value: String) throws -> HTTPRequest.Template {
        let requests = try SurveyRequests(journey: journey, headers: [], target: target, columns: ["a"])
        let recipe = requests.recipes[2]
        func pick(_ name: String) -> String { name == source ? value : "fine" }
        var values = CompiledTemplate.Values(row: [pick("row")], respondentID: 0, session: [pick("session")], questionID: 1)
        values.questionFields = [pick("question")]
        values.answer = pick("answer")
        values.answerLabel = pick("label")
        return recipe.template(values)
    }

    static let sources = ["row", "session", "question", "answer", "label"]

    @Test(arguments: sources)
    func aValueThatWouldEndAHeaderLineFaultsTheHeadWhateverItsSource(_ source: String) throws {
        #expect(try Self.submitHead(source, "fine").fault == nil)
        for value in Self.hostile {
            let head = try Self.submitHead(source, value)
            let fault = try #require(head.fault, "\(source): \(value.debugDescription)")
            // Named by its header and its byte, never quoted.
            #expect(fault.contains("header 'X-") || fault.contains("header 'Cookie'"), "\(fault)")
            #expect(!fault.contains(value) && !fault.contains("X-Evil"))
            // The path keeps every value in its segment, percent-encoded.
            #expect(!head.path.utf8.contains { !HTTPSyntax.isFieldValueByte($0) || $0 == 0x20 }, "\(head.path)")
        }
    }

    @Test func aTabAndNonASCIITextStayFine() throws {
        for source in Self.sources {
            #expect(try Self.submitHead(source, "a\tb é 😀").fault == nil)
        }
    }

    /// A run of one respondent whose answer (from the plan) or data row would end a header
    /// line: every submit fails as `invalid_request`, none reaches the transport.
    @Test(arguments: ["answer", "row"])
    func anAttemptWhoseHeadAValueWouldBreakFailsUnsentAsAnInvalidRequest(_ source: String) async throws {
        let journey = Journey([
            JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
            JourneyStep(
                .submit, call: .init(method: "POST", path: "/q/${question.id}"),
                headers: [HTTPHeader(name: "X-Value", value: source == "answer" ? "${answer}" : "${row.a}")], runs: .perQuestion),
        ])
        let bad = "a\r\nX-Evil: 1"
        var configuration = RunConfiguration(
            load: .closed(respondents: 1), answers: AnswerBook(fallback: [source == "answer" ? bad : "x"]),
            retry: RetryPolicies([.questions: .never, .submit: .never]))
        configuration.declaredJourney = journey
        configuration.data = RespondentData(columns: ["a"], rows: [[source == "row" ? bad : "x"]], order: .sequential)
        let transport = ScriptedTransport(survey())
        let recorder = MetricsRecorder(lanes: 1)
        let context = SurveyContext(
            configuration: configuration, requests: try SurveyRequests(journey: journey, headers: [], target: target, columns: ["a"]),
            seed: 1, transport: transport, clock: VirtualClock().clock, recorder: recorder, interruption: OnceFlag(),
            runStart: 1_000_000_000)
        var respondent = Respondent(index: 0, seed: 1, lane: 0, row: 0)
        _ = await respondent.run(context)
        #expect(transport.sent.map(\.method) == ["GET"])
        let submit = recorder.snapshot()[.submit]
        #expect(submit.errors == [.invalidRequest: 3])
        let sample = try #require(submit.errorSamples[.invalidRequest])
        #expect(sample.contains("header 'X-Value'") && sample.contains("carriage return") && !sample.contains("X-Evil"))
    }

    /// A cookie holding a control character is never kept (RFC 6265bis §5.7), so never sent
    /// back: the one place both protocols' cookies go through.
    @Test func aSetCookieWithAControlCharacterIsIgnored() {
        let origin = CookieOrigin(host: "127.0.0.1", path: "/", secure: false)
        for value in ["a\u{01}b", "a\0b", "a\rb", "a\nb", "a\u{7F}b", "a\u{1B}b"] {
            var jar = CookieJar()
            jar.store([Array("s=\(value)".utf8), Array("t=ok".utf8)], from: origin, now: 0, unixTime: 0)
            #expect(jar.header(for: origin, now: 1) == Array("t=ok".utf8), "\(value.debugDescription)")
        }
        var jar = CookieJar()
        jar.store([Array("s=a\tb; Path=/".utf8)], from: origin, now: 0, unixTime: 0)
        #expect(jar.header(for: origin, now: 1) == Array("s=a\tb".utf8))
    }

    /// The requests a server read: each one's method and header fields.
    final class Seen: Sendable {
        private let list = Mutex<[(method: String, headers: [HTTPHeader])]>([])
        func add(_ method: String, _ headers: [HTTPHeader]) { list.withLock { $0.append((method, headers)) } }
        var requests: [(method: String, headers: [HTTPHeader])] { list.withLock { $0 } }
    }

    enum Wire: String, CaseIterable {
        case http1
        case h2c
    }

    /// Against a real server on loopback, over each protocol: an answer that would end a header
    /// line reaches no server, the questions do; over h2c a `set-cookie` with a control
    /// character (HTTP/2 lets one through but NUL, CR and LF) is never sent back. HTTP/1.1's
    /// parser refuses such a field in the response itself.
    @Test(arguments: Wire.allCases)
    func nothingAValueWouldBreakReachesTheServerOverEitherProtocol(_ wire: Wire) async throws {
        let group = EventLoopGroup(threads: 1)
        var client = HTTPClientConfiguration(timeout: .seconds(30))
        client.version = wire == .h2c ? .http2 : .auto
        let seen = Seen()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, credentials: true, http2: wire == .h2c ? .init() : nil) {
            request in
            seen.add(request.method, request.headers)
            let cookie = wire == .h2c ? [HTTPHeader(name: "Set-Cookie", value: "s=a\u{01}b")] : []
            return .respond(
                EncodedResponse(
                    HTTPServerResponse(status: 200, headers: cookie, body: request.method == "GET" ? Array(questionsJSON.utf8) : [])))
        }
        let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: server.port)
        let transport = try HTTPClient(target: target, group: group, configuration: client)
        var result: RunResult?
        try await tearingDown(transport, server, group) {
            let journey = Journey([
                JourneyStep(.questions, call: .init(method: "GET", path: "/questions"), questions: .contract),
                JourneyStep(
                    .submit, call: .init(method: "POST", path: "/q/${question.id}"),
                    headers: [HTTPHeader(name: "X-Answer", value: "${answer}")], runs: .perQuestion),
                JourneyStep(Step("again"), call: .init(method: "GET", path: "/again")),
            ])
            var configuration = RunConfiguration(
                load: .closed(respondents: 1), seed: 1, answers: AnswerBook(fallback: ["a\nX-Evil: 1"]), client: client)
            configuration.declaredJourney = journey
            configuration.retry = RetryPolicies([.questions: .never, .submit: .never, Step("again"): .never])
            let coordinator = try RunCoordinator(configuration: configuration, target: target, transport: transport, executors: group.loops)
            result = await coordinator.run()
        }
        let run = try #require(result)
        #expect(run.metrics[.submit].errors == [.invalidRequest: 3])
        let requests = seen.requests
        #expect(requests.map(\.method) == ["GET", "GET"])
        #expect(
            requests.allSatisfy { $0.headers.allSatisfy { !$0.name.lowercased().hasPrefix("x-evil") && $0.name.lowercased() != "cookie" } })
    }
}
