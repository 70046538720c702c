import Foundation
import SurveyEngine
import Testing

@testable import SurveyBot

/// Mutates the example plans at random (seeded, so every failure reproduces) and checks that
/// the parser never crashes and that every error points inside the file.
@Suite struct PlanFuzzTests {
    @Test func tenThousandMutatedPlansNeverEscapeTheFile() throws {
        let seeds = try ["smoke", "stress", "flaky"].map { name in
            Array(try String(contentsOfFile: repositoryPath("plans/\(name).plan"), encoding: .utf8).utf8)
        }
        let report = PlanFuzzer.run(cases: 10_000, seed: 0x5EED, plans: seeds)
        #expect(report.escapes.isEmpty, "diagnostics outside the file:\n\(report.escapes.prefix(5).joined(separator: "\n"))")
        // The mutations must actually break plans, or the test proves nothing.
        #expect(report.invalid > 5_000, "only \(report.invalid) of 10000 mutants were invalid")
        #expect(report.valid > 100, "only \(report.valid) of 10000 mutants stayed valid")
    }
}
