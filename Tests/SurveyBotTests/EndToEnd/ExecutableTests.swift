import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport

/// The executable is only a doorway to SurveyBot, so what it prints must be what the library
/// prints in-process, to the byte. A `survey-bot` left over from an older build fails here as
/// soon as any help text differs, before it can make another end-to-end test pass or fail for
/// reasons that are not in the source.
@Suite struct ExecutableTests {
    @Test func helpPrintedByTheExecutableIsTheLibrarysHelp() async throws {
        for arguments in [["--help"], ["run", "--help"]] {
            let expected = await runCommand(arguments)
            let run = try ChildProcess(surveyBot: arguments)
            #expect(await run.wait(seconds: 30) == 0, "\(arguments): \(run.standardError)")
            #expect(run.standardOutput == expected.out, "\(arguments)")
            #expect(run.standardError.isEmpty, "\(arguments)")
        }
    }

    @Test func versionPrintedByTheExecutableIsTheLibrarysVersion() async throws {
        let run = try ChildProcess(surveyBot: ["--version"])
        #expect(await run.wait(seconds: 30) == 0)
        #expect(run.standardOutput == "\(SurveyEngine.version)\n")
    }
}
