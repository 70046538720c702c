import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

@Suite struct CommandLineTests {
    @Test func rootHelpListsSubcommandsAndExitCodes() async {
        for arguments in [["--help"], ["-h"], [], ["help"]] {
            let result = await runCommand(arguments)
            #expect(result.status == .success)
            for name in ["run", "validate", "serve", "diff", "report", "merge", "help"] {
                #expect(result.out.contains("\n  \(name) "), "\(arguments): \(name) missing")
            }
            #expect(result.out.contains("EXIT CODES:"))
            #expect(result.out.contains("130  interrupted"))
        }
    }

    @Test func everySubcommandHasHelpWithUsageOptionsAndDefaults() async {
        for name in ["run", "validate", "serve", "diff", "report", "merge"] {
            let viaFlag = await runCommand([name, "--help"])
            let viaHelp = await runCommand(["help", name])
            #expect(viaFlag.status == .success)
            #expect(viaFlag.out == viaHelp.out)
            #expect(viaFlag.out.contains("USAGE: survey-bot \(name)"))
            #expect(viaFlag.out.contains("OPTIONS:"))
            #expect(viaFlag.out.contains("-h, --help"))
        }
        let serve = await runCommand(["serve", "--help"])
        #expect(serve.out.contains("--port <port>"))
        #expect(serve.out.contains("(default: 127.0.0.1)"))
        let diff = await runCommand(["diff", "--help"])
        #expect(diff.out.contains("(default: 10%)"))
    }

    @Test func versionPrintsTheVersion() async {
        let result = await runCommand(["--version"])
        #expect(result.status == .success)
        #expect(result.out == "0.1.0\n")
    }

    @Test func misspeltOptionGetsDidYouMeanUsageAndExitTwo() async {
        let result = await runCommand(["run", "plans/smoke.plan", "--concurency", "5"])
        #expect(result.status == .validationFailure)
        let lines = result.err.split(separator: "\n")
        #expect(lines.first == "Error: unknown option '--concurency' (did you mean '--concurrency'?)")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: survey-bot run <plan>") == true)
        #expect(result.err.contains("See 'survey-bot run --help'"))
        #expect(result.out.isEmpty)
    }

    @Test func misspeltCommandGetsDidYouMean() async {
        let result = await runCommand(["valdiate", "x.plan"])
        #expect(result.status == .validationFailure)
        #expect(result.err.hasPrefix("Error: unknown command 'valdiate' (did you mean 'validate'?)"))
    }

    @Test func missingValueAndMissingArgument() async {
        let noValue = await runCommand(["validate", "a.plan", "--concurrency"])
        #expect(noValue.status == .validationFailure)
        #expect(noValue.err.hasPrefix("Error: missing value for '--concurrency <n>'"))
        let noPlan = await runCommand(["validate"])
        #expect(noPlan.status == .validationFailure)
        #expect(noPlan.err.hasPrefix("Error: missing expected argument '<plan>'"))
        let extra = await runCommand(["report", "a.json", "b.json"])
        #expect(extra.err.hasPrefix("Error: unexpected argument 'b.json'"))
        let flagValue = await runCommand(["run", "a.plan", "--quiet=yes"])
        #expect(flagValue.err.hasPrefix("Error: option '--quiet' takes no value"))
    }

    @Test func parsesBothOptionSpellingsAndRepeats() throws {
        let parser = ArgumentParser(spec: ValidateCommand.spec)
        guard
            case .arguments(let parsed) = try parser.parse([
                "a.plan", "--concurrency=5", "--set", "a=1", "--set=b=2", "b.plan", "--", "--weird.plan",
            ])
        else {
            Issue.record("expected arguments")
            return
        }
        #expect(parsed.value("concurrency") == "5")
        #expect(parsed.values("set") == ["a=1", "b=2"])
        #expect(parsed.positionals == ["a.plan", "b.plan", "--weird.plan"])
    }

    @Test func validateSummarisesValidPlans() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("ok.plan", lines("respondents: 20", "concurrency: 5"))
        let result = await runCommand(["validate", path])
        #expect(result.status == .success)
        #expect(result.out == "\(path): ok — closed model, 20 respondents, concurrency 5, target builtin\n")
    }

    @Test func validateReportsEveryErrorOfEveryFile() async throws {
        let directory = try TemporaryDirectory()
        let good = try directory.write("good.plan", "respondents: 2\n")
        let bad1 = try directory.write("bad1.plan", lines("concurency: 5", "timeout: x"))
        let bad2 = try directory.write("bad2.plan", lines("name: \"open"))
        let result = await runCommand(["validate", bad1, good, bad2])
        #expect(result.status == .validationFailure)
        #expect(result.out.contains("good.plan: ok"))
        #expect(result.err.contains("bad1.plan:1:1: error: unknown key 'concurency'"))
        #expect(result.err.contains("bad1.plan:2:10: error: expected a duration"))
        #expect(result.err.contains("bad1.plan: 2 errors"))
        #expect(result.err.contains("bad2.plan:1:7: error: unterminated string"))
    }

    @Test func validateAppliesOverrides() async throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("p.plan", "respondents: 2\n")
        let result = await runCommand(["validate", path, "--concurrency", "0"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("error: --concurrency 0: concurrency must be at least 1"))
        let bad = await runCommand(["validate", path, "--set", "nonsense"])
        #expect(bad.status == .validationFailure)
        #expect(bad.err.hasPrefix("Error: --set expects key.path=value"))
    }

    @Test func unreadablePlanIsAClearError() async {
        let result = await runCommand(["validate", "/nonexistent/x.plan"])
        #expect(result.status == .validationFailure)
        #expect(result.err.contains("/nonexistent/x.plan:1:1: error: cannot read the plan"))
    }
}
