import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine

/// Mutates the example plans at random (seeded, so every failure reproduces) and checks that
/// the parser never crashes and that every error points inside the file.
///
/// `swift test` runs 10,000 cases; `SURVEY_BOT_FUZZ_PLANS=100000` (bench/fuzz.sh) the full size.
@Suite struct PlanFuzzTests {
    static var cases: Int { Int(ProcessInfo.processInfo.environment["SURVEY_BOT_FUZZ_PLANS"] ?? "") ?? 10_000 }

    @Test func tenThousandMutatedPlansNeverEscapeTheFile() async throws {
        let seeds = try ["smoke", "stress", "flaky", "journey"].map { name in
            Array(try String(contentsOfFile: repositoryPath("plans/\(name).plan"), encoding: .utf8).utf8)
        }
        let cases = Self.cases
        let report = await PlanFuzzer.run(cases: cases, seed: 0x5EED, plans: seeds)
        #expect(report.escapes.isEmpty, "diagnostics outside the file:\n\(report.escapes.prefix(5).joined(separator: "\n"))")
        // The mutations must actually break plans, or the test proves nothing. Bounds, not the
        // exact counts (6,786 and 3,214 today): these check the fuzzer's mix, which any count
        // above them serves equally well, and the counts move with every edit of the example
        // plans the mutants start from. What the parser must do is exact: no escapes.
        #expect(report.invalid > cases / 2, "only \(report.invalid) of \(cases) mutants were invalid")
        #expect(report.valid > cases / 100, "only \(report.valid) of \(cases) mutants stayed valid")
        print("plan fuzz: \(cases) mutants, \(report.invalid) invalid, \(report.valid) valid, \(report.escapes.count) escapes")
    }

    /// Deep indentation, very long lines, NULs, escape sequences, binary garbage and huge
    /// files: no crash, and what would be printed stays under 64 KiB and free of control
    /// characters. 30 cases in `swift test` (5 of each kind), 1 in 100 of
    /// `SURVEY_BOT_FUZZ_PLANS` in `bench/fuzz.sh`.
    @Test func hostilePlansNeverCrashAndPrintLittle() async throws {
        let seeds = try ["smoke", "stress", "flaky", "journey"].map { name in
            Array(try String(contentsOfFile: repositoryPath("plans/\(name).plan"), encoding: .utf8).utf8)
        }
        let fullSize = ProcessInfo.processInfo.environment["SURVEY_BOT_FUZZ_PLANS"].flatMap { Int($0) }
        let cases = max(30, (fullSize ?? 0) / 100)
        let report = await PlanFuzzer.runHostile(cases: cases, seed: 0x5EED, plans: seeds)
        #expect(report.failures.isEmpty, "\(report.failures.prefix(5).joined(separator: "\n"))")
        #expect(report.kinds.count == PlanFuzzer.hostileKinds.count)
        print("plan fuzz: \(report.cases) hostile plans, \(report.failures.count) failures, largest output \(report.largestOutput) bytes")
    }
}
