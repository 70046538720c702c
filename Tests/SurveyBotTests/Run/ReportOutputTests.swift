import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// The files a run's report goes to: one timestamped set per run, never another run's, and the
/// `latest` copy.
@Suite struct ReportOutputTests {
    /// Two runs of one plan that start within the same second — a script running a plan twice,
    /// one run against a dead target and one fixed — used to share one timestamped name, and the
    /// second report replaced the first. The second now takes the next free name.
    @Test func aSecondRunInTheSameSecondKeepsTheFirstReport() throws {
        let directory = try TemporaryDirectory()
        let started = Date(timeIntervalSince1970: 1_795_000_000)
        var paths: [[String]] = []
        for name in ["first", "second"] {
            let report = ReportFixtures.report(runID: name)
            let output = ReportOutput(directory: directory.path, formats: [.json, .markdown], shard: .whole)
            try output.prepare(name: "smoke")
            output.finish(report, started: started)
            output.stop()
            #expect(output.failure == nil, "\(String(describing: output.failure))")
            paths.append(output.written)
        }
        let stamp = "\(directory.path)/smoke-20261118T110640Z"
        #expect(paths == [["\(stamp).json", "\(stamp).md"], ["\(stamp)-2.json", "\(stamp)-2.md"]], "\(paths)")
        for (index, name) in ["first", "second"].enumerated() where paths[index].count == 2 {
            let text = try String(contentsOfFile: paths[index][0], encoding: .utf8)
            #expect(text.contains("\"\(name)\""), "\(paths[index][0])")
            #expect(FileManager.default.fileExists(atPath: paths[index][1]))
        }
        let latest = try String(contentsOfFile: "\(directory.path)/smoke-latest.json", encoding: .utf8)
        #expect(latest.contains("\"second\""))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("tmp") }
        #expect(left.isEmpty, "\(left)")
    }

    /// Taking a name is atomic: a file already there is never replaced.
    @Test func writingANewFileNeverReplacesOne() throws {
        let directory = try TemporaryDirectory()
        let existing = try directory.write("x.json", "precious")
        let writer = ReportWriter(directory: directory.path)
        #expect(try writer.writeNew("report\n", to: "x.json") == nil)
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "precious")
        #expect(try writer.writeNew("report\n", to: "y.json") == "\(directory.path)/y.json")
        #expect(try String(contentsOfFile: "\(directory.path)/y.json", encoding: .utf8) == "report\n")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("tmp") }
        #expect(left.isEmpty, "\(left)")
    }
}
