import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// What `lstat` says `path` is: its type bits, or nil when nothing is there.
private func fileType(_ path: String) -> mode_t? {
    var status = stat()
    return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
}

/// The temporary files (`.NAME….tmp…`) left in `directory`.
private func temporaryFiles(in directory: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".") && $0.contains(".tmp") }
}

/// Report files are written through a temporary file no one else can plant or predict, renamed
/// over the destination; what is not a file at the destination is refused in plain words.
@Suite struct ReportWriterTests {
    /// Another local user plants a link where the temporary file would be — under the name the
    /// writer used to pick, `.NAME.tmp-PID`, which anyone could compute — pointing at a file of
    /// the user who runs survey-bot. The link is never opened, so the file is never touched.
    @Test func aLinkPlantedAtATemporaryNameIsNeverFollowed() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.write("victim", "precious")
        try FileManager.default.createSymbolicLink(atPath: "\(directory.path)/.x.json.tmp-\(getpid())", withDestinationPath: victim)
        let written = try ReportWriter(directory: directory.path).write("report\n", to: "x.json")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: written, encoding: .utf8) == "report\n")
        #expect(fileType(written) == S_IFREG)
    }

    /// Whatever the name, a file or link already there is never opened: the temporary file is
    /// created exclusively, and after 16 names taken the write fails, touching nothing.
    @Test func aTemporaryFileIsCreatedExclusively() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.write("victim", "precious")
        try FileManager.default.createSymbolicLink(atPath: "\(directory.path)/.x.json.planted.tmp", withDestinationPath: victim)
        var writer = ReportWriter(directory: directory.path)
        writer.random = { "planted" }
        #expect {
            try writer.write("report\n", to: "x.json")
        } throws: { error in
            "\(error)" == "cannot write \(directory.path)/x.json: file exists"
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(fileType("\(directory.path)/x.json") == nil)
        #expect(TemporaryFiles.paths.allSatisfy { !$0.hasPrefix(directory.path) })
    }

    @Test func temporaryNamesCannotBeGuessed() {
        let names = (0..<1000).map { _ in TemporaryFiles.randomPart() }
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.count == 32 && $0.allSatisfy(\.isHexDigit) })
    }

    /// A link at the destination — `reports/x-latest.json` pointing elsewhere — is replaced by
    /// the report, as `rename` replaces it; what it pointed to is not written.
    @Test func aLinkAtTheDestinationIsReplacedNotFollowed() throws {
        let directory = try TemporaryDirectory()
        let victim = try directory.write("victim", "precious")
        let destination = "\(directory.path)/x.json"
        try FileManager.default.createSymbolicLink(atPath: destination, withDestinationPath: victim)
        try ReportWriter(directory: directory.path).write("report\n", to: "x.json")
        #expect(fileType(destination) == S_IFREG)
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "report\n")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try temporaryFiles(in: directory.path).isEmpty)
    }

    /// A directory or a FIFO where the report should go is refused in plain words and left as
    /// it is — a FIFO is not replaced by a file behind the back of whoever reads it — and no
    /// temporary file is left behind.
    @Test func aDestinationThatIsNotAFileIsRefusedInPlainWords() throws {
        let directory = try TemporaryDirectory()
        let writer = ReportWriter(directory: directory.path)
        try FileManager.default.createDirectory(atPath: "\(directory.path)/taken.json", withIntermediateDirectories: false)
        #expect {
            try writer.write("report\n", to: "taken.json")
        } throws: { error in
            "\(error)" == "cannot write \(directory.path)/taken.json: is a directory"
        }
        #expect(mkfifo("\(directory.path)/fifo.json", 0o644) == 0)
        #expect {
            try writer.write("report\n", to: "fifo.json")
        } throws: { error in
            "\(error)" == "cannot write \(directory.path)/fifo.json: is a FIFO, not a file"
        }
        #expect(fileType("\(directory.path)/fifo.json") == S_IFIFO)
        #expect(try temporaryFiles(in: directory.path).isEmpty)
    }
}
