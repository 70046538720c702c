import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// Every command that reads or writes a file says what went wrong with it in plain words — the
/// system's, lower case — never a framework's error domain and code.
@Suite struct FileErrorTests {
    private func expectPlainWords(
        _ arguments: [String], says expected: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async {
        let result = await runCommand(arguments)
        #expect(result.status == .validationFailure, "\(arguments): \(result.err)", sourceLocation: sourceLocation)
        #expect(result.err.contains(expected), "\(arguments): \(result.err)", sourceLocation: sourceLocation)
        for jargon in ["Domain", "error 256", "operation could not be completed", "couldn’t", "doesn’t exist", "You don’t have"] {
            #expect(!result.err.contains(jargon), "\(arguments): \(result.err)", sourceLocation: sourceLocation)
        }
    }

    @Test func fileErrorsAreInPlainWords() async throws {
        let directory = try TemporaryDirectory()
        let valid = try directory.write("valid.json", ReportFixtures.report().jsonText())
        let file = try directory.write("file", "not a directory")
        let missing = directory.missing("missing.json")
        await expectPlainWords(["validate", directory.path], says: "\(directory.path):1:1: error: cannot read the plan: is a directory")
        await expectPlainWords(["validate", directory.missing("x.plan")], says: "cannot read the plan: no such file or directory")
        await expectPlainWords(["report", directory.path], says: "cannot read \(directory.path): is a directory")
        await expectPlainWords(["report", missing], says: "cannot read \(missing): no such file or directory")
        await expectPlainWords(["diff", valid, missing], says: "cannot read \(missing): no such file or directory")
        await expectPlainWords(["merge", valid, "--out", directory.path], says: "cannot write \(directory.path): is a directory")
        await expectPlainWords(
            ["merge", valid, "--out", file + "/merged.json"],
            says: "cannot create the report directory \(file): a file of that name is in the way")
        await expectPlainWords(
            ["merge", valid, "--out", file + "/deeper/merged.json"],
            says: "cannot create the report directory \(file)/deeper: \(file) is not a directory")
        let questionsPlan = try directory.write(
            "q.plan", "target: builtin\nanswers:\n  \"*\": yes\nbuiltin:\n  questions_file: \(missing)\n")
        await expectPlainWords(
            ["validate", questionsPlan], says: "cannot read builtin.questions_file \(missing): no such file or directory")
    }
}
