import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// The real executable given plans made to hurt it: it exits 2 with a short, clear message,
/// and never crashes or floods the terminal.
@Suite struct HostilePlanEndToEndTests {
    @Test func nineThousandLevelsExit2WithAClearMessage() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("deep.plan", nestedPlan(levels: 9_000))
        let run = try ChildProcess(surveyBot: ["validate", plan])
        #expect(await run.wait(seconds: 60) == 2, "\(run.standardError.prefix(500))")
        // One space a level makes 40 MB: the file is refused by its size before it is parsed.
        #expect(run.standardError.contains("deep.plan:1443:629:"), "\(run.standardError.prefix(500))")
        #expect(run.standardError.contains("larger than 1 MiB"), "\(run.standardError.prefix(500))")
        #expect(run.standardError.utf8.count < 1_000)
    }

    @Test func aThousandLevelsWithinTheSizeLimitStopAt64() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("deep.plan", nestedPlan(levels: 1_000))
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path])
        #expect(await run.wait(seconds: 60) == 2, "\(run.standardError.prefix(500))")
        #expect(run.standardError.contains("deep.plan:65:65: error: nesting deeper than 64 levels"), "\(run.standardError.prefix(500))")
        #expect(run.standardError.utf8.count < 2_000)
    }

    @Test func aBinaryFileIsOneNotATextPlanLine() async throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: 14)
        var bytes = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        bytes.replaceSubrange(0..<12, with: Array("name: x\n\u{1B}[2J\0".utf8))
        let plan = directory.path + "/binary.plan"
        try Data(bytes).write(to: URL(fileURLWithPath: plan))
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path])
        #expect(await run.wait(seconds: 60) == 2)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 2, "\(run.standardError.prefix(500))")
        #expect(lines.first?.hasPrefix("\(plan):2:5: error: not a text plan") == true, "\(run.standardError.prefix(500))")
        #expect(run.standardError.utf8.count < 500)
        #expect(!run.standardError.utf8.contains(0x1B))
    }
}
