import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Why an end-to-end test cannot run the executable.
struct MissingExecutable: Error, CustomStringConvertible {
    var description: String
}

/// The `survey-bot` executable in the build directory of the running test bundle.
///
/// SurveyBotTests depends on the `survey-bot` target (Package.swift), so whatever builds this
/// bundle — `swift test`, `swift build --build-tests`, `swift build --product
/// survey-botPackageTests` — first builds the executable from the same source into the same
/// directory. No other place is looked at: a `survey-bot` found elsewhere (`.build/debug`
/// beside a bundle built with another `--scratch-path`, say) may be from older source, and an
/// end-to-end test run against it would pass or fail for reasons that are not in the code.
func executablePath() throws(MissingExecutable) -> String {
    try builtExecutable.get()
}

private let builtExecutable: Result<String, MissingExecutable> = {
    // On Linux the test bundle is itself the running executable.
    guard let bundle = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
        return .failure(MissingExecutable(description: "cannot tell where the test bundle is: /proc/self/exe is unreadable"))
    }
    let directory = URL(fileURLWithPath: bundle).deletingLastPathComponent().path
    let path = directory + "/survey-bot"
    guard FileManager.default.isExecutableFile(atPath: path) else {
        return .failure(
            MissingExecutable(
                description: """
                    no survey-bot executable beside the test bundle \(bundle): building the tests builds it there \
                    (SurveyBotTests depends on the survey-bot target), so this bundle was built some other way; \
                    rebuild with `swift build --build-tests` rather than run an older survey-bot
                    """))
    }
    return .success(path)
}()

extension ChildProcess {
    /// Starts the `survey-bot` built from this source (`executablePath()`) with `arguments`.
    convenience init(
        surveyBot arguments: [String], directory: String? = nil, environment: [String: String]? = nil, closedStandardOutput: Bool = false
    ) throws {
        try self.init(
            try executablePath(), arguments, directory: directory, environment: Self.withoutInheritedProxies(environment),
            closedStandardOutput: closedStandardOutput)
    }

    /// The variables that give survey-bot a proxy (docs/proxy.md).
    static let proxyVariables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// `environment` (the test process's when nil) without the proxy variables the test process
    /// itself has: a test's traffic stays on loopback on a machine whose shell sets
    /// `https_proxy`, as survey-bot, like curl, would send loopback targets through it. A test
    /// that sets one to a value of its own keeps it.
    static func withoutInheritedProxies(_ environment: [String: String]?) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var result = environment ?? inherited
        for name in proxyVariables where result[name] != nil && result[name] == inherited[name] { result[name] = nil }
        return result
    }
}

/// `survey-bot serve --port 0` with `options`; returns the tool and the URL it listens on.
func startServer(_ options: [String]) async throws -> (ChildProcess, String) {
    let server = try ChildProcess(surveyBot: ["serve", "--port", "0"] + options)
    guard await server.waitForOutput("\n") else {
        server.stop()
        struct NoURL: Error {}
        throw NoURL()
    }
    let line = server.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
    return (server, String(line.dropFirst("listening on ".count)))
}

/// Whether this process may mount a tmpfs in a private mount namespace.
let canMountPrivately: Bool = {
    guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
    let probe = Process()
    probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    probe.arguments = ["-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]
    probe.standardError = FileHandle.nullDevice
    guard (try? probe.run()) != nil else { return false }
    probe.waitUntilExit()
    return probe.terminationStatus == 0
}()

/// Runs `plans/<name>.plan` (changed by `edit`) against `handler`, served on loopback with
/// credentials kept, the environment given plus `environment`, in which `PORT` stands for the
/// server's port; the report and the exit status.
func runExamplePlan(
    _ name: String, _ handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerAction, environment: [String: String],
    edit: (String) -> String = { $0 }
) async throws -> (RunReport, Int32) {
    let directory = try TemporaryDirectory()
    let group = EventLoopGroup(threads: 1)
    let server = try HTTPServer(host: "127.0.0.1", port: 0, group: group, credentials: true, handler: handler)
    var outcome: (RunReport, Int32)?
    try await tearingDown(
        after: {
            let plan = try directory.write(
                "\(name).plan", edit(try String(contentsOfFile: repositoryPath("plans/\(name).plan"), encoding: .utf8)))
            var env = ProcessInfo.processInfo.environment
            for (key, value) in environment { env[key] = value.replacingOccurrences(of: "PORT", with: String(server.port)) }
            let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path, "--quiet"], environment: env)
            let status = await run.wait(seconds: 60)
            outcome = (try RunReport.read(path: directory.path + "/\(name)-latest.json"), status)
        },
        {
            await server.shutdown()
            group.shutdown()
        })
    return try #require(outcome)
}
