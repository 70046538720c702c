import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyTestSupport
@testable import SurveyWire

/// A byte that would let plan text forge a second request (or a second header) if it reached
/// the request head, and how the error names it.
struct HostileByte: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    /// A phrase of the error message for this byte in a path.
    var phrase: String

    var testDescription: String { name }

    static let inPaths: [HostileByte] = [
        HostileByte(name: "CR LF", text: "\r\nX-Smuggled: 1\r\n", phrase: "carriage return"),
        HostileByte(name: "LF", text: "\nGET /x", phrase: "line feed"),
        HostileByte(name: "CR", text: "\r", phrase: "carriage return"),
        HostileByte(name: "space", text: " HTTP/1.1", phrase: "a space"),
        HostileByte(name: "NUL", text: "\0", phrase: "NUL"),
        HostileByte(name: "tab", text: "\t", phrase: "tab"),
        HostileByte(name: "ESC", text: "\u{1B}[2J", phrase: "\\u{1B}"),
        HostileByte(name: "DEL", text: "\u{7F}", phrase: "\\u{7F}"),
        HostileByte(name: "non-ASCII", text: "é", phrase: "non-ASCII"),
        HostileByte(name: "bad percent-encoding", text: "%zz", phrase: "'%' not followed by two hexadecimal digits"),
    ]

    /// Bytes a header value may not hold (a tab and spaces are allowed).
    static let inHeaderValues: [HostileByte] = [
        HostileByte(name: "CR LF", text: "\r\nHost: evil", phrase: "carriage return"),
        HostileByte(name: "LF", text: "\nX: y", phrase: "line feed"),
        HostileByte(name: "CR", text: "\r", phrase: "carriage return"),
        HostileByte(name: "NUL", text: "\0", phrase: "NUL"),
        HostileByte(name: "ESC", text: "\u{1B}", phrase: "\\u{1B}"),
        HostileByte(name: "DEL", text: "\u{7F}", phrase: "\\u{7F}"),
    ]
}

/// `text` as a double-quoted plan string: CR, LF, NUL and tab by their escapes, every other
/// character as itself (an escape character or a DEL stands in the file as the byte).
func quotedInPlan(_ text: String) -> String {
    var quoted = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\r": quoted += "\\r"
        case "\n": quoted += "\\n"
        case "\0": quoted += "\\0"
        case "\t": quoted += "\\t"
        case "\"": quoted += "\\\""
        case "\\": quoted += "\\\\"
        case "$": quoted += "\\$"
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "\""
}

/// Nothing a plan says — literally, through `${ENV}`, `--set` or `--target` — can put a byte
/// into a request head that would end the request line or a header early: such a target, path
/// or header is an error at its place, and `validate` says so.
@Suite struct RequestInjectionTests {
    @Test(arguments: HostileByte.inPaths)
    func hostileByteInTheTargetsBasePathIsAnErrorAtTheValue(_ byte: HostileByte) {
        expectSingleError(
            lines("target: " + quotedInPlan("http://127.0.0.1:8080/v1" + byte.text + "x")), line: 1, column: 9,
            contains: byte.phrase)
    }

    @Test(arguments: HostileByte.inPaths)
    func hostileByteInAnAPIPathIsAnErrorAtTheValue(_ byte: HostileByte) {
        expectSingleError(
            lines("target: http://127.0.0.1:8080", "api:", "  questions: " + quotedInPlan("GET /questions" + byte.text)), line: 3,
            column: 14, contains: byte.phrase)
        expectSingleError(
            lines("target: http://127.0.0.1:8080", "api:", "  submit: " + quotedInPlan("/question/submit" + byte.text + "/x")), line: 3,
            column: 11, contains: byte.phrase)
    }

    @Test(arguments: HostileByte.inPaths)
    func hostileByteFromTheEnvironmentIsAnErrorAtTheVariable(_ byte: HostileByte) {
        expectSingleError(
            lines("target: ${SURVEY_TARGET}"), line: 1, column: 9, contains: byte.phrase,
            environment: ["SURVEY_TARGET": "http://127.0.0.1:8080/v1" + byte.text + "x"])
        expectSingleError(
            lines("target: http://127.0.0.1:8080", "api:", "  questions: GET /questions${SURVEY_SUFFIX}"), line: 3, column: 14,
            contains: byte.phrase,
            environment: ["SURVEY_SUFFIX": "x" + byte.text])
    }

    @Test(arguments: HostileByte.inPaths)
    func hostileByteInASetOverrideIsAnErrorNamingTheOption(_ byte: HostileByte) throws {
        var overrides = PlanOverrides()
        let assignment = "api.questions=GET /questions" + byte.text + "/x"
        try overrides.set(assignment: assignment)
        let diagnostics = expectErrors(lines("target: http://127.0.0.1:8080"), overrides: overrides)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.location.origin == .option("--set " + assignment))
        #expect(diagnostics.first?.message.contains(byte.phrase) == true)
    }

    @Test(arguments: HostileByte.inPaths)
    func hostileByteInTheTargetOptionIsAnErrorNamingTheOption(_ byte: HostileByte) {
        var overrides = PlanOverrides()
        let url = "http://127.0.0.1:8080/v1" + byte.text + "x"
        overrides.set("target", to: url, option: "--target")
        let diagnostics = expectErrors(lines("target: builtin"), overrides: overrides)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.location.origin == .option("--target " + url))
        #expect(diagnostics.first?.message.contains(byte.phrase) == true, "\(diagnostics)")
    }

    @Test(arguments: HostileByte.inHeaderValues)
    func hostileByteInAHeaderValueIsAnErrorAtTheValue(_ byte: HostileByte) {
        expectSingleError(
            lines("api:", "  headers:", "    X-Trace: " + quotedInPlan("a" + byte.text + "b")), line: 3, column: 14, contains: byte.phrase)
        expectSingleError(
            lines("api:", "  headers:", "    Authorization: Bearer ${SURVEY_TOKEN}"), line: 3, column: 20, contains: byte.phrase,
            environment: ["SURVEY_TOKEN": "t0k3n" + byte.text])
    }

    @Test func aTabAndNonASCIITextAreFineInAHeaderValue() throws {
        let plan = try #require(expectPlan(lines("api:", "  headers:", "    X-Note: " + quotedInPlan("a\tb — é"))))
        #expect(plan.run.api.headers == [HTTPHeader(name: "X-Note", value: "a\tb — é")])
    }

    @Test(arguments: ["Host", "host", "HOST", "Content-Length", "Transfer-Encoding", "connection"])
    func framingHeadersCannotBeSetFromAPlan(_ name: String) {
        expectSingleError(
            lines("api:", "  headers:", "    \(name): x"), line: 3, column: 5, contains: "is set by survey-bot and cannot be given")
    }

    @Test(arguments: ["X Trace", "\"X-A:\"", "\"X\\r\\nHost\"", "\"X\u{1B}\"", "\"é\"", "\"(x)\""])
    func headerNamesMustBeTokens(_ name: String) {
        expectSingleError(lines("api:", "  headers:", "    \(name): x"), line: 3, column: 5, contains: "is not a valid header name")
    }

    @Test func percentEncodedPathsAndQueriesAreAccepted() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "target: http://127.0.0.1:8080/v1/%7Euser",
                    "api:",
                    "  questions: GET /questions?lang=en&q=a%20b",
                    "  submit: POST /question/submit;v=1/!$&'()*+,=:@-._~")))
        #expect(plan.target == .url(HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080, basePath: "/v1/%7Euser")))
        #expect(plan.run.api.questions == SurveyAPI.Call(method: "GET", path: "/questions?lang=en&q=a%20b"))
        #expect(plan.run.api.submit == SurveyAPI.Call(method: "POST", path: "/question/submit;v=1/!$&'()*+,=:@-._~"))
    }

    /// The command line, end to end in the process: `validate` says error, names the flag,
    /// and exits 2.
    @Test func validateRefusesAHostileTargetOptionAndNamesIt() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("ok.plan", "target: builtin\n")
        let result = await runCommand(["validate", plan, "--target", "http://127.0.0.1:9/v1\r\nX: y"])
        #expect(result.status == .validationFailure)
        #expect(result.err.hasPrefix("error: --target http://127.0.0.1:9/v1"), "\(result.err)")
        #expect(result.err.contains("carriage return"), "\(result.err)")
        #expect(!result.err.utf8.contains(0x0D), "control bytes are escaped in diagnostics: \(result.err)")
    }
}
