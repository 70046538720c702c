import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The `EXIT CODES:` section of a subcommand's help, one line a code.
private func exitCodes(_ command: String) async -> [String] {
    let help = await runCommand([command, "--help"]).out
    guard let start = help.range(of: "EXIT CODES:\n") else { return [] }
    // A meaning wrapped over several lines is one row.
    var rows: [String] = []
    for line in help[start.upperBound...].split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
        if line.first?.isNumber == true || rows.isEmpty { rows.append(line) } else { rows[rows.count - 1] += " " + line }
    }
    return rows
}

@Suite struct SubcommandHelpTests {
    @Test func eachSubcommandShowsItsOwnExitCodes() async {
        let run = await exitCodes("run")
        #expect(run.map { $0.prefix { $0 != " " } } == ["0", "1", "2", "130", "143", "129"], "\(run)")
        #expect(run[1].contains("a threshold failed") && run[1].contains("file descriptors or ports"), "\(run)")
        #expect(run.dropFirst(3).allSatisfy { $0.contains("a partial report was written") }, "\(run)")
        let validate = await exitCodes("validate")
        #expect(validate == ["0  every plan is valid", "2  usage, or a plan with errors (each printed with file:line:col)"])
        let serve = await exitCodes("serve")
        #expect(serve == ["0  stopped by SIGINT or SIGTERM", "2  usage, or the server could not start (address in use, TLS files)"])
        let report = await exitCodes("report")
        #expect(report == ["0  the report was rendered", "2  usage, or a file that is not a report this version reads"])
        let merge = await exitCodes("merge")
        #expect(merge.map { $0.prefix { $0 != " " } } == ["0", "1", "2", "130"], "\(merge)")
        #expect(merge[0] == "0  every shard merged, and every threshold held on the whole")
        #expect(merge[1].contains("--allow-partial") && merge[1].contains("never 0"), "\(merge[1])")
        #expect(merge[2].contains("different runs or plans") && merge[2].contains("missing"), "\(merge[2])")
        let help = await exitCodes("help")
        #expect(help == ["0  help was shown", "2  no such subcommand"])
        // The overview keeps the whole table.
        let root = await runCommand(["--help"])
        #expect(root.out.contains("130  interrupted"))
    }

    @Test func requiredOptionsAreMarkedInUsageAndOptions() async {
        let help = await runCommand(["merge", "--help"]).out
        #expect(help.contains("USAGE: survey-bot merge <report> ... --out <file> [--allow-partial]\n"), "\(help)")
        let out = help.split(separator: "\n").first { $0.hasPrefix("  -o, --out <file>") }
        #expect(out?.contains("(required) Where to write the merged JSON report") == true, "\(help)")
        let run = await runCommand(["run", "--help"]).out
        #expect(!run.contains("(required)"))
    }

    @Test func aMissingRequiredOptionIsAUsageError() async {
        let result = await runCommand(["merge", "a.json"])
        #expect(result.status == .validationFailure)
        #expect(result.err.hasPrefix("Error: missing required option '--out <file>'\nUsage: survey-bot merge"), "\(result.err)")
    }
}
