import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyTestSupport

/// A data file over the size limit is refused by its size, before a gigabyte is read.
@Suite struct DataFileLimitTests {
    @Test func aFileOverTheLimitIsRefusedByItsSizeAtItsStart() throws {
        let directory = try TemporaryDirectory()
        let csv = try directory.write("big.csv", "a\n1\n")
        // Sparse: the size says more than a gigabyte, the disk holds a few bytes.
        #expect(truncate(csv, off_t(CSVReader.Limits.maxFileBytes + 1)) == 0)
        let path = try directory.write("p.plan", "data: big.csv\n")
        guard case .failure(let errors) = PlanLoader(environment: [:]).load(path: path) else {
            Issue.record("a file over the limit was read")
            return
        }
        let messages = errors.diagnostics.map { "\($0.location.line):\($0.location.column): \($0.message)" }
        #expect(messages == ["1:1: the data file is larger than 1 GiB (1073741824 bytes), the limit for a data file"], "\(messages)")
        #expect(errors.diagnostics.first?.location.origin == .file(csv))
    }
}
