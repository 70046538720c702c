import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney

/// Every kind of plan error, each at its exact line and column.
@Suite struct PlanDiagnosticTests {
    @Test func unknownKeyErrorNamesLineAndSuggestion() {
        expectSingleError(
            lines("name: x", "concurency: 5"), line: 2, column: 1, contains: "unknown key 'concurency' (did you mean 'concurrency'?)")
    }

    @Test func unknownNestedKeyNamesItsBlock() {
        expectSingleError(
            lines("retry:", "  submit:", "    atempts: 2"), line: 3, column: 5,
            contains: "unknown key 'atempts' in 'retry.submit' (did you mean 'attempts'?)")
    }

    @Test func unknownKeyFarFromAnyListsTheKnownKeys() {
        expectSingleError(lines("zzzzzz: 1"), line: 1, column: 1, contains: "known keys: name, target")
    }

    @Test func duplicateKeyPointsAtTheSecondAndNamesTheFirst() {
        expectSingleError(
            lines("concurrency: 2", "name: x", "concurrency: 3"), line: 3, column: 1,
            contains: "duplicate key 'concurrency' (first given on line 1)")
    }

    @Test func theBlockOfABrokenLineIsLeftOutWithIt() {
        // Without its colon, 'thresholds' is broken: its entries are not taken for builtin's.
        expectSingleError(
            lines("builtin:", "  questions: 3", "thresholds", "  submit.p95: \"< 1s\"", "name: x"), line: 3, column: 1,
            contains: "expected 'key: value', found 'thresholds'")
    }

    @Test func tabIndentationIsAnError() {
        expectSingleError(lines("api:", "\tquestions: GET /q"), line: 2, column: 1, contains: "tab character in indentation")
    }

    @Test func tabAfterSpacesIsReportedAtTheTab() {
        expectSingleError(lines("api:", "  \tquestions: GET /q"), line: 2, column: 3, contains: "tab character in indentation")
    }

    @Test func badIndentationNamesBothWidths() {
        expectSingleError(
            lines("retry:", "  submit:", "    attempts: 2", "   backoff: none"), line: 4, column: 4,
            contains: "bad indentation: 3 spaces where this block uses 2")
    }

    @Test func indentationUnderAScalarIsAnError() {
        expectSingleError(lines("timeout: 5s", "  concurrency: 2"), line: 2, column: 3, contains: "'timeout' already has a value on line 1")
    }

    @Test func anEntryIndentedLessThanTheNextNamesBothIndentations() {
        // The slip is the first line's (one space), though the parser meets it at the second:
        // the message gives both indentations, so either can be seen to be the odd one.
        expectSingleError(
            lines("answers:", " 1: blue", "  2: red"), line: 3, column: 3,
            contains: "'1' already has a value on line 2, indented 1 space, and this line is indented 2 spaces")
    }

    @Test func unterminatedDoubleQuote() {
        expectSingleError(lines("name: \"smoke"), line: 1, column: 7, contains: "unterminated string: missing closing \"")
    }

    @Test func unterminatedSingleQuote() {
        expectSingleError(lines("name: ok", "target: 'builtin"), line: 2, column: 9, contains: "unterminated string: missing closing '")
    }

    @Test func unterminatedInlineList() {
        expectSingleError(lines("report:", "  formats: [json, markdown"), line: 2, column: 12, contains: "unterminated list: missing ']'")
    }

    @Test func unknownEscapeSequence() {
        expectSingleError(lines(#"name: "a\qb""#), line: 1, column: 9, contains: "unknown escape sequence '\\q'")
    }

    @Test func textAfterClosingQuote() {
        expectSingleError(lines(#"name: "a" b"#), line: 1, column: 11, contains: "unexpected text after the closing quote")
    }

    @Test func lineWithoutColonIsNotAnEntry() {
        expectSingleError(lines("name: x", "just words"), line: 2, column: 1, contains: "expected 'key: value'")
        // What was found is the line's text, not its comment.
        expectSingleError(
            lines("name: x", "just words   # a comment"), line: 2, column: 1, contains: "expected 'key: value', found 'just words'")
    }

    @Test func wrongKindNamesTheExpectedKind() {
        expectSingleError(lines("concurrency: lots"), line: 1, column: 14, contains: "expected an integer for 'concurrency', found 'lots'")
        expectSingleError(
            lines("timeout: soon"), line: 1, column: 10, contains: "expected a duration like 250ms, 5s or 1m30s for 'timeout', found 'soon'"
        )
        expectSingleError(
            lines("builtin:", "  fail_rate: some"), line: 2, column: 14, contains: "expected a percentage like 5% or a fraction like 0.05")
        expectSingleError(
            lines("rate: fast", "duration: 1m"), line: 1, column: 7, contains: "expected a rate like 20/s or 600/m for 'rate'")
        expectSingleError(
            lines("think: 1s..x"), line: 1, column: 8,
            contains: "expected a duration like 200ms, a range like 200ms..1s, or normal(mean, deviation)")
        expectSingleError(
            lines("concurrency: [1, 2]"), line: 1, column: 14, contains: "expected an integer for 'concurrency', found a list")
        expectSingleError(lines("api: GET /q"), line: 1, column: 6, contains: "expected a block of keys under 'api'")
    }

    @Test func bareNumberDurationAsksForAUnit() {
        expectSingleError(lines("timeout: 5"), line: 1, column: 10, contains: "needs a unit")
    }

    @Test func outOfRangeValues() {
        expectSingleError(lines("concurrency: 0"), line: 1, column: 14, contains: "concurrency must be at least 1, found 0")
        expectSingleError(lines("respondents: -3"), line: 1, column: 14, contains: "respondents must be at least 1, found -3")
        expectSingleError(lines("timeout: -5s"), line: 1, column: 10, contains: "durations cannot be negative")
        expectSingleError(lines("builtin:", "  fail_rate: 120%"), line: 2, column: 14, contains: "cannot be over 100%")
        expectSingleError(lines("builtin:", "  fail_rate: 1.5"), line: 2, column: 14, contains: "between 0 and 1")
        expectSingleError(lines("think: 2s..1s"), line: 1, column: 8, contains: "runs backwards")
        expectSingleError(
            lines("retry:", "  submit:", "    attempts: 0"), line: 3, column: 15, contains: "attempts must be between 1 and 1000")
        expectSingleError(lines("retry:", "  submit:", "    initial: 2s", "    max: 1s"), line: 3, column: 14, contains: "is more than")
    }

    @Test func byteSizeErrorsSayWhatIsWrong() {
        func expectMaxBodyError(_ value: String, _ message: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
            expectSingleError(lines("max_body: \(value)"), line: 1, column: 11, contains: message, sourceLocation: sourceLocation)
        }
        expectMaxBodyError("lots", "expected a byte size like 1MiB, 512KiB, 2MB or 1000000 for 'max_body', found 'lots'")
        expectMaxBodyError("0", "max_body must be at least 1B, found 0B")
        expectMaxBodyError("2GiB", "max_body must be at most 1GiB, found 2GiB")
        expectMaxBodyError("-1MiB", "a byte size cannot be negative, found '-1MiB'")
        expectMaxBodyError("1M", "'1M' is ambiguous: write 1MiB for powers of 1024 or 1MB for powers of 1000")
        expectMaxBodyError("5XB", "unknown unit 'XB' in '5XB': use B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024)")
        expectMaxBodyError("1.5B", "'1.5B' is not a whole number of bytes")
        expectMaxBodyError("99999999999999999999", "'99999999999999999999' is too large")
        expectMaxBodyError("9999999999GiB", "'9999999999GiB' is too large")
    }

    @Test func missingEnvironmentVariableIsNamed() {
        expectSingleError(
            lines("api:", "  headers:", "    Authorization: Bearer ${SURVEY_TOKEN}"), line: 3, column: 27,
            contains: "environment variable 'SURVEY_TOKEN' is not set")
    }

    @Test func rateWithoutDurationIsAnError() {
        expectSingleError(lines("rate: 20/s"), line: 1, column: 1, contains: "a plan with 'rate' needs 'duration'")
    }

    @Test func closedAndOpenModelKeysConflict() {
        expectSingleError(
            lines("respondents: 5", "rate: 2/s", "duration: 1m"), line: 1, column: 1, contains: "'respondents' belongs to the closed model")
    }

    @Test func unknownBackoffAndJitterNames() {
        expectSingleError(
            lines("retry:", "  submit:", "    backoff: exponental"), line: 3, column: 14, contains: "did you mean 'exponential'?")
        expectSingleError(
            lines("retry:", "  questions:", "    jitter: decorelated"), line: 3, column: 13, contains: "did you mean 'decorrelated'?")
        expectSingleError(
            lines("retry:", "  submit:", "    on: [400, tmeout]"), line: 3, column: 15,
            contains: "unknown retry condition 'tmeout' (did you mean 'timeout'?)")
    }

    @Test func thresholdErrors() {
        expectSingleError(
            lines("thresholds:", "  sumbit.p95: \"< 1s\""), line: 2, column: 3,
            contains: "unknown threshold scope 'sumbit' (did you mean 'submit'?)")
        expectSingleError(lines("thresholds:", "  submit.p96: \"< 1s\""), line: 2, column: 10, contains: "unknown threshold metric 'p96'")
        expectSingleError(lines("thresholds:", "  submit.p95: 300ms"), line: 2, column: 15, contains: "expected a comparison")
        expectSingleError(
            lines("thresholds:", "  submit.p95: \"< 250 parsecs\""), line: 2, column: 15,
            contains: "expected a latency like 300ms for 'thresholds.submit.p95', found '250 parsecs'")
        expectSingleError(
            lines("thresholds:", "  submit.completion_rate: \">= 1%\""), line: 2, column: 10, contains: "write 'survey.completion_rate'")
        expectSingleError(lines("thresholds:", "  submit.success_rate: \">= 150%\""), line: 2, column: 24, contains: "over 100%")
    }

    @Test func answersMustCoverTheBuiltinQuestions() {
        expectSingleError(
            lines("builtin:", "  questions: 3", "answers:", "  1: a", "  2: b"), line: 3, column: 1, contains: "no answer for question 3")
        #expect(expectPlan(lines("builtin:", "  questions: 3", "answers:", "  1: a", "  \"*\": b")) != nil)
    }

    /// Ids are what the API gives: numbers or strings, named in the plan by their text.
    @Test func answerKeysAreQuestionIdsOfAnyKindOrStar() throws {
        let plan = try #require(
            expectPlan(lines("target: http://127.0.0.1:9", "answers:", "  colour: red", "  900001X1X2: [a, b]", "  7: x", "  \"*\": y")))
        #expect(
            plan.run.answers.byQuestion == [QuestionID("colour"): ["red"], QuestionID("900001X1X2"): ["a", "b"], QuestionID(7): ["x"]])
        #expect(plan.run.answers.fallback == ["y"])
        // The builtin server asks questions 1 to 10: an answer for another id is never used.
        let builtin = try #require(expectPlan(lines("answers:", "  colour: red", "  \"*\": x")))
        #expect(
            builtin.warnings.map(\.message) == [
                "'answers.colour' answers question colour, but the builtin server asks questions 1–10: it is never used"
            ])
        #expect(builtin.warnings.first?.location.line == 2)
    }

    @Test func headerNamesAndReservedHeaders() {
        expectSingleError(lines("api:", "  headers:", "    Content-Length: 5"), line: 3, column: 5, contains: "set by survey-bot")
        expectSingleError(lines("api:", "  questions: get /q"), line: 2, column: 14, contains: "is not an HTTP method")
        expectSingleError(lines("api:", "  submit: POST q"), line: 2, column: 11, contains: "starts with '/'")
    }

    @Test func targetMustBeBuiltinOrAURL() {
        expectSingleError(lines("target: bultin"), line: 1, column: 9, contains: "did you mean 'builtin'?")
        expectSingleError(lines("target: ftp://x"), line: 1, column: 9, contains: "expected 'builtin' or a URL")
        expectSingleError(lines("target: http://host:99999"), line: 1, column: 9, contains: "is not a port")
    }

    /// A plan with four unrelated mistakes (a misspelt key, a missing env var, a tab and a bad
    /// duration) gives exactly four diagnostics, each at its own line and column, in source
    /// order: one mistake does not hide the next.
    @Test func fourMistakesGiveFourDiagnostics() {
        let text = lines(
            "name: four",
            "concurency: 5",
            "api:",
            "  headers:",
            "    X-Token: ${NOT_SET_ANYWHERE}",
            "retry:",
            "\tsubmit: {}",
            "timeout: 5 minutes")
        let diagnostics = expectErrors(text)
        #expect(diagnostics.map { "\($0.location.line):\($0.location.column)" } == ["2:1", "5:14", "7:1", "8:10"])
        #expect(diagnostics[0].message.contains("unknown key 'concurency'"))
        #expect(diagnostics[1].message.contains("NOT_SET_ANYWHERE"))
        #expect(diagnostics[2].message.contains("tab"))
        #expect(diagnostics[3].message.contains("expected a duration"))
    }

    @Test func diagnosticReadsLikeACompilerError() {
        let diagnostics = expectErrors(lines("name: x", "  concurrency: 5"))
        #expect(
            diagnostics.first?.description == """
                test.plan:2:3: error: unexpected indentation: 'name' already has a value on line 1, indented 0 spaces, and this line is indented 2 spaces; lines of one block are indented alike
                  concurrency: 5
                  ^
                """)
    }
}
