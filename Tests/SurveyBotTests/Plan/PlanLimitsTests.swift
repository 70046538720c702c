import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A plan `levels` deep: `k1:` at column 1, each next key `step` spaces further in.
func nestedPlan(levels: Int, step: Int = 1) -> String {
    (0..<levels).map { String(repeating: " ", count: $0 * step) + "k\($0 + 1):" }.joined(separator: "\n") + "\n"
}

/// Loads plan bytes as the command line does, file checks included.
func loadPlanBytes(_ bytes: [UInt8]) -> Result<Plan, PlanErrors> {
    PlanLoader(environment: [:]).load(data: bytes, path: "test.plan")
}

/// The diagnostics of plan bytes that must not load.
func expectErrors(bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [Diagnostic] {
    switch loadPlanBytes(bytes) {
    case .success:
        Issue.record("expected errors, but the plan was valid", sourceLocation: sourceLocation)
        return []
    case .failure(let errors):
        return errors.diagnostics
    }
}

/// Plans are untrusted input: whatever a file holds, reading it ends with a bounded number of
/// short diagnostics, each at its place and with no control character of the file in it.
@Suite struct PlanLimitsTests {
    /// Extreme numbers are refused at their place, with exit 2, instead of trapping in
    /// `validate` (a rate past Int) or in the run (an interval whose end overflows).
    @Test func anExtremeRateOrDurationIsAnErrorAtItsPlaceNotATrap() {
        expectSingleError(
            lines("target: builtin", "rate: 9300000000000000000/s", "duration: 1s"), line: 2, column: 7,
            contains: "a rate must be at most 10000000/s")
        expectSingleError(
            lines("target: builtin", "respondents: 2", "report:", "  interval: 2000000h"), line: 4, column: 13,
            contains: "is too long: at most 8784h (a year)")
        expectSingleError(lines("target: builtin", "respondents: 2", "timeout: 8785h"), line: 3, column: 10, contains: "is too long")
        // The bounds themselves are plans.
        #expect(expectPlan(lines("target: builtin", "rate: 10000000/s", "duration: 8784h")) != nil)
    }

    @Test func nestingDeeperThan64LevelsIsOneErrorAtTheLineThatGoesTooDeep() {
        let diagnostics = expectErrors(nestedPlan(levels: 200))
        let deep = diagnostics.filter { $0.message.contains("nesting deeper than 64 levels") }
        #expect(deep.count == 1, "\(diagnostics)")
        #expect(deep.first.map { "\($0.location.line):\($0.location.column)" } == "65:65")
    }

    @Test func sixtyFourLevelsAreWithinTheLimit() {
        let diagnostics = expectErrors(nestedPlan(levels: 64))
        #expect(!diagnostics.contains { $0.message.contains("nesting") }, "\(diagnostics)")
    }

    @Test func deepListsCountAsLevelsToo() {
        // `- k:` items open a mapping each; the compact form puts the items under their key.
        let text = (0..<100).map { String(repeating: " ", count: $0 * 2) + "- k\($0):" }.joined(separator: "\n")
        let diagnostics = expectErrors("ramp:\n" + text + "\n")
        #expect(diagnostics.filter { $0.message.contains("nesting deeper than 64 levels") }.count == 1, "\(diagnostics)")
    }

    @Test func aLineLongerThan64KiBIsAnErrorWhereItPassesTheLimit() {
        let diagnostics = expectErrors(lines("name: x", "target: " + String(repeating: "a", count: 70_000)))
        #expect(diagnostics.count == 1, "\(diagnostics.map(\.message))")
        #expect(diagnostics.first.map { "\($0.location.line):\($0.location.column)" } == "2:65537")
        #expect(diagnostics.first?.message.contains("longer than 64 KiB") == true)
    }

    @Test func aFileLargerThan1MiBIsOneErrorWhereItPassesTheLimit() {
        let line = Array("# a comment of forty bytes, give or tak\n".utf8)
        let bytes = Array(repeating: line, count: 30_000).joined()
        let diagnostics = expectErrors(bytes: Array(bytes))
        #expect(diagnostics.count == 1, "\(diagnostics.prefix(3))")
        // 1 MiB is 26,214 lines of 40 bytes and 16 bytes more: the next byte is 26,215:17.
        #expect(diagnostics.first.map { "\($0.location.line):\($0.location.column)" } == "26215:17")
        #expect(diagnostics.first?.message.contains("larger than 1 MiB") == true)
    }

    @Test func aFileWithANulIsNotATextPlanAtTheFirstNul() {
        let diagnostics = expectErrors(bytes: Array("name: x\ntar\0get: y\0\n".utf8))
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first.map { "\($0.location.line):\($0.location.column)" } == "2:4")
        #expect(diagnostics.first?.message.contains("not a text plan") == true)
        #expect(diagnostics.first?.sourceLine == nil, "no line of a binary file is echoed")
    }

    @Test func invalidUTF8IsNotATextPlanAtTheFirstBadByte() {
        let diagnostics = expectErrors(bytes: Array("name: é\n".utf8) + [0x6E, 0x3A, 0x20, 0xFF, 0x0A])
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first.map { "\($0.location.line):\($0.location.column)" } == "2:4")
        #expect(diagnostics.first?.message.contains("not a text plan") == true)
        #expect(diagnostics.first?.message.contains("UTF-8") == true)
    }

    @Test func controlCharactersAreEscapedInTheMessageAndTheLine() {
        let diagnostics = expectErrors(lines("name: \"a\u{1B}[2Jb\" x"))
        #expect(
            diagnostics.first?.description == """
                test.plan:1:16: error: unexpected text after the closing quote
                name: "a\\u{1B}[2Jb" x
                                    ^
                """)
        let key = expectErrors(lines("concurency\u{1B}]0;pwned\u{07}\u{9B}\u{202E}: 5"))
        let text = key.map(\.description).joined()
        #expect(text.contains("'concurency\\u{1B}]0;pwned\\u{07}\\u{9B}\\u{202E}'"), "\(text)")
        #expect(!text.unicodeScalars.contains { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) })
        #expect(!text.unicodeScalars.contains("\u{202E}"))
    }

    @Test func invisibleCharactersAreShownByTheirCodes() {
        // A byte-order mark or a zero-width space makes 'name' look like a key it is not.
        let diagnostics = expectErrors(lines("\u{FEFF}name: x", "ti\u{200B}meout: 5s", "order:\u{2028}random"))
        let text = diagnostics.map(\.description).joined(separator: "\n")
        #expect(text.contains("unknown key '\\u{FEFF}name'"), "\(text)")
        #expect(text.contains("unknown key 'ti\\u{200B}meout'"), "\(text)")
        #expect(text.contains("order:\\u{2028}random"), "\(text)")
        #expect(!text.unicodeScalars.contains { ["\u{FEFF}", "\u{200B}", "\u{2028}"].contains($0) })
    }

    @Test func anOptionsSpellingIsEscapedToo() {
        var overrides = PlanOverrides()
        overrides.set("concurrency", to: "\u{1B}[2J", option: "--concurrency")
        let diagnostics = expectErrors(lines("name: x"), overrides: overrides)
        #expect(diagnostics.first?.description.hasPrefix("error: --concurrency \\u{1B}[2J: ") == true, "\(diagnostics)")
    }

    @Test func aLongLineIsShownAroundTheCaret() throws {
        let diagnostics = expectErrors(lines("name: \"" + String(repeating: "a", count: 60_000) + "\" b"))
        let description = try #require(diagnostics.first?.description)
        let shown = description.split(separator: "\n")
        #expect(shown.count == 3)
        #expect(shown.allSatisfy { $0.count < 300 }, "\(shown.map(\.count))")
        #expect(shown[1].hasPrefix("…") && shown[1].hasSuffix("\" b"))
        #expect(shown[2].count == shown[1].distance(from: shown[1].startIndex, to: try #require(shown[1].firstIndex(of: "b"))) + 1)
    }

    @Test func aLongMessageIsCut() throws {
        let diagnostics = expectErrors(lines(String(repeating: "k", count: 60_000) + ": 1"))
        let description = try #require(diagnostics.first?.description)
        #expect(description.count < 1_500, "\(description.count) characters")
        #expect(description.contains("unknown key 'kkkk"))
    }

    @Test func onlyTheFirst20ErrorsArePrintedThenHowManyMore() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("many.plan", (1...100).map { "unknown\($0): 1" }.joined(separator: "\n") + "\n")
        let result = await runCommand(["validate", plan])
        #expect(result.status == .validationFailure)
        let lines = result.err.split(separator: "\n")
        #expect(lines.filter { $0.contains(": error: ") }.count == 20)
        #expect(lines.contains("and 80 more errors"), "\(lines.suffix(3))")
        #expect(lines.last == "\(plan): 100 errors")
    }

    @Test func aSetKeyPathDeeperThanTheLimitIsAUsageError() async {
        let path = Array(repeating: "a", count: 100_000).joined(separator: ".")
        let result = await runCommand(["validate", repositoryPath("plans/smoke.plan"), "--set", path + "=1"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("at most 64"), "\(result.err.prefix(300))")
        #expect(result.err.count < 2_000)
    }
}
