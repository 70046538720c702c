import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A builtin plan that ends in well under a second: four respondents of ten questions.
private let quickPlan = """
    name: quick
    target: builtin
    respondents: 4
    concurrency: 2
    answers:
      "*": yes
    report:
      formats: [json]
    """

/// The report files of the real executable, a closed standard output, and paths that are not
/// files.
@Suite struct ReportFilesEndToEndTests {
    /// `survey-bot run … | head -1`: the reader is gone before the summary is printed. The run
    /// still writes its reports and exits with its verdict — not killed by SIGPIPE (141).
    @Test func aClosedStandardOutputDoesNotKillTheRun() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("quick.plan", quickPlan)
        let run = try ChildProcess(surveyBot: ["run", plan, "--out", directory.path], closedStandardOutput: true)
        #expect(await run.wait(seconds: 30) == 0, "\(run.standardError)")
        let report = try RunReport.read(path: directory.path + "/quick-latest.json")
        #expect(report.respondents.completed == 4)
        #expect(!run.standardError.contains("Error"), "\(run.standardError)")
    }

    /// A FIFO, a socket or a device where a file should be is refused, exit 2, before anything
    /// opens it: opening a FIFO to read would wait for a writer forever.
    @Test func aFIFOSocketOrDeviceIsRefusedBeforeItIsOpened() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.missing("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let socketPath = directory.missing("socket")
        let socketFD = try bindUnixSocket(at: socketPath)
        defer { close(socketFD) }
        let plan = try directory.write("quick.plan", quickPlan)
        let valid = try directory.write("valid.json", ReportFixtures.report().jsonText())
        let caPlan = try directory.write(
            "ca.plan", "target: https://127.0.0.1:9\nanswers:\n  \"*\": yes\ntls:\n  ca_file: \(fifo)\n")
        let questionsPlan = try directory.write(
            "questions.plan", "target: builtin\nanswers:\n  \"*\": yes\nbuiltin:\n  questions_file: \(fifo)\n")
        let latest = try TemporaryDirectory()
        #expect(mkfifo(latest.missing("quick-latest.json"), 0o644) == 0)
        let cases: [(arguments: [String], says: String)] = [
            (["validate", fifo], "\(fifo):1:1: error: cannot read the plan: is a FIFO, not a file"),
            (["validate", socketPath], "cannot read the plan: is a socket, not a file"),
            (["validate", "/dev/null"], "cannot read the plan: is a device, not a file"),
            (["run", fifo], "cannot read the plan: is a FIFO, not a file"),
            (["report", fifo], "cannot read \(fifo): is a FIFO, not a file"),
            (["diff", fifo, valid], "cannot read \(fifo): is a FIFO, not a file"),
            (["merge", fifo, "--out", directory.missing("merged.json")], "cannot read \(fifo): is a FIFO, not a file"),
            (["merge", valid, "--out", fifo], "cannot write \(fifo): is a FIFO, not a file"),
            (["validate", caPlan], "\(fifo): is a FIFO, not a file"),
            (["validate", questionsPlan], "cannot read builtin.questions_file \(fifo): is a FIFO, not a file"),
            (["serve", "--port", "0", "--tls-cert", fifo, "--tls-key", fifo], "\(fifo): is a FIFO, not a file"),
            (["serve", "--port", "0", "--questions-file", fifo], "cannot read the questions file \(fifo): is a FIFO, not a file"),
            (["serve", "--port", "0", "--questions-raw", fifo], "cannot read the questions file \(fifo): is a FIFO, not a file"),
            (["run", plan, "--out", latest.path], "cannot write \(latest.path)/quick-latest.json: is a FIFO, not a file"),
        ]
        for (arguments, says) in cases {
            let tool = try ChildProcess(surveyBot: arguments)
            #expect(await tool.wait(seconds: 10) == 2, "\(arguments): \(tool.allOutput)")
            #expect(tool.standardError.contains(says), "\(arguments): \(tool.standardError)")
        }
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
    }

    /// As a user the permissions hold for (the tests run as root, for whom they do not): every
    /// command says `permission denied`, not a framework's error code.
    @Test(.enabled(if: getuid() == 0 && Installed.setpriv != nil, "needs root and setpriv to run as another user"))
    func permissionDeniedIsSaidInPlainWords() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("locked.plan", quickPlan)
        let report = try directory.write("locked.json", ReportFixtures.report().jsonText())
        let readOnly = directory.missing("read-only")
        try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false)
        chmod(plan, 0)
        chmod(report, 0)
        chmod(readOnly, 0o555)
        let open = try directory.write("open.plan", quickPlan)
        let cases: [(arguments: [String], says: String)] = [
            (["validate", plan], "\(plan):1:1: error: cannot read the plan: permission denied"),
            (["report", report], "cannot read \(report): permission denied"),
            (["merge", report, "--out", directory.missing("merged.json")], "cannot read \(report): permission denied"),
            (["run", open, "--out", readOnly], "cannot write into the report directory \(readOnly): permission denied"),
            (
                ["merge", try directory.write("open.json", ReportFixtures.report().jsonText()), "--out", readOnly + "/merged.json"],
                "cannot write into the report directory \(readOnly): permission denied"
            ),
        ]
        for (arguments, says) in cases {
            let tool = try ChildProcess(
                Installed.setpriv!, ["--reuid=65534", "--regid=65534", "--clear-groups", executablePath()] + arguments)
            #expect(await tool.wait(seconds: 20) == 2, "\(arguments): \(tool.allOutput)")
            #expect(tool.standardError.contains(says), "\(arguments): \(tool.standardError)")
        }
    }
}

/// Binds a Unix socket at `path` and returns its descriptor: a socket file where a plan should be.
private func bindUnixSocket(at path: String) throws -> Int32 {
    struct BindFailure: Error {}
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BindFailure() }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw BindFailure() }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in bytes.enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else {
        close(fd)
        throw BindFailure()
    }
    return fd
}
