import Testing

@testable import SurveyBot

/// Loads plan text as `test.plan` with the given environment and overrides.
func loadPlan(_ text: String, environment: [String: String] = [:], overrides: PlanOverrides = PlanOverrides()) -> Result<Plan, PlanErrors> {
    PlanLoader(environment: environment).load(text: text, path: "test.plan", overrides: overrides)
}

/// The plan, or a test failure listing the diagnostics.
func expectPlan(
    _ text: String, environment: [String: String] = [:], overrides: PlanOverrides = PlanOverrides(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Plan? {
    switch loadPlan(text, environment: environment, overrides: overrides) {
    case .success(let plan):
        return plan
    case .failure(let errors):
        Issue.record("expected a valid plan, got:\n\(errors)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The diagnostics of an invalid plan, or a test failure when it was valid.
func expectErrors(
    _ text: String, environment: [String: String] = [:], overrides: PlanOverrides = PlanOverrides(),
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> [Diagnostic] {
    switch loadPlan(text, environment: environment, overrides: overrides) {
    case .success:
        Issue.record("expected errors, but the plan was valid", sourceLocation: sourceLocation)
        return []
    case .failure(let errors):
        return errors.diagnostics
    }
}

/// Expects exactly one diagnostic, at `line:column`, whose message contains `message`.
func expectSingleError(
    _ text: String, line: Int, column: Int, contains message: String, environment: [String: String] = [:],
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    let diagnostics = expectErrors(text, environment: environment, sourceLocation: sourceLocation)
    guard diagnostics.count == 1, let d = diagnostics.first else {
        Issue.record(
            "expected one diagnostic, got \(diagnostics.count):\n\(diagnostics.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
        return
    }
    #expect(d.location.line == line, "line of: \(d)", sourceLocation: sourceLocation)
    #expect(d.location.column == column, "column of: \(d)", sourceLocation: sourceLocation)
    #expect(d.message.contains(message), "message of: \(d)", sourceLocation: sourceLocation)
}

/// A plan's text from lines, so tests show line numbers plainly.
func lines(_ lines: String...) -> String {
    lines.joined(separator: "\n") + "\n"
}

/// An absolute path inside the repository, found from this source file's location.
func repositoryPath(_ relative: String) -> String {
    let file = #filePath
    var components = file.split(separator: "/", omittingEmptySubsequences: false)
    // …/Tests/SurveyBotTests/Support/PlanTestHelpers.swift → …/
    components.removeLast(4)
    return components.joined(separator: "/") + "/" + relative
}
