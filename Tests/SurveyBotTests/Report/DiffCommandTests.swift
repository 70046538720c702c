import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// `survey-bot diff` on the command line: exit codes, options, help.
@Suite struct DiffCommandTests {
    @Test func noiseExitsZeroAndARegressionExitsOne() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", SampledRun.report(seed: 11).jsonText())
        let b = try directory.write("b.json", SampledRun.report(seed: 12).jsonText())
        let slow = try directory.write("slow.json", SampledRun.report(seed: 13, latencyMs: 1.3...3.9).jsonText())
        let noise = await runCommand(["diff", a, b])
        #expect(noise.status == .success, "\(noise.out)")
        #expect(noise.out.contains("~ within noise"))
        let regression = await runCommand(["diff", a, slow])
        #expect(regression.status == .failure, "\(regression.out)")
        #expect(
            regression.out.split(separator: "\n").contains { $0.contains("submit") && $0.contains("p50") && $0.contains("REGRESSED (p") })
    }

    @Test func toleranceTakesAnyNonNegativePercentage() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", ReportFixtures.report().jsonText())
        let b = try directory.write("b.json", ReportFixtures.report(metrics: ReportFixtures.metrics(submitLatencyScale: 1.3)).jsonText())
        let loose = await runCommand(["diff", a, b, "--tolerance", "150%"])
        #expect(loose.status == .success, "\(loose.err)")
        #expect(loose.out.contains("tolerance 150%"))
        let perMetric = await runCommand(["diff", a, b, "--tolerance", "200%", "--tolerance", "submit.p50=0%"])
        #expect(perMetric.status == .failure)
        let bare = await runCommand(["diff", a, b, "--tolerance", "1.5"])
        #expect(bare.status == .validationFailure)
        #expect(bare.err.contains("--tolerance 1.5: a bare number is a fraction from 0 to 1: write 150%"))
        let negative = await runCommand(["diff", a, b, "--tolerance", "-5%"])
        #expect(negative.status == .validationFailure)
        #expect(negative.err.contains("--tolerance -5%: must not be negative"))
    }

    @Test func confidenceIsAPercentageBelowAHundred() async throws {
        let directory = try TemporaryDirectory()
        let a = try directory.write("a.json", ReportFixtures.report().jsonText())
        let strict = await runCommand(["diff", a, a, "--confidence", "99%"])
        #expect(strict.status == .success)
        #expect(strict.out.contains("confidence 99%"))
        for bad in ["100%", "0", "high"] {
            let result = await runCommand(["diff", a, a, "--confidence", bad])
            #expect(result.status == .validationFailure, "\(bad)")
            #expect(result.err.contains("--confidence \(bad):"), "\(result.err)")
        }
    }

    @Test func helpShowsTheExitCodesOfDiff() async {
        let help = await runCommand(["diff", "--help"])
        #expect(help.status == .success)
        #expect(help.out.contains("EXIT CODES:"))
        #expect(help.out.contains("0  no regression"))
        #expect(help.out.contains("1  a regression"))
        #expect(help.out.contains("--confidence <confidence>"))
        #expect(!help.out.contains("threshold failed"))
        #expect(!help.out.contains("interrupted"))
    }
}
