@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Seeded mutation fuzzing of plan files: byte flips, deleted and duplicated lines, random
/// indentation, and grammar-aware insertions (quotes, colons, brackets, tabs, `${`).
///
/// Used by `PlanFuzzTests`: a small slice in `swift test`, the full size from `bench/fuzz.sh`
/// (which sets `SURVEY_BOT_FUZZ_PLANS`), so that both exercise exactly the same mutations.
enum PlanFuzzer {
    struct Report: Sendable {
        var valid = 0
        var invalid = 0
        /// Descriptions of diagnostics that pointed outside the file, with the case number.
        var escapes: [String] = []
    }

    /// Runs `cases` mutants derived from `plans` (file contents as bytes), on a thread of its
    /// own (`onOwnThread`): these seconds of parsing must not hold a thread of the cooperative
    /// pool from every other test running alongside. Each mutant derives from its own index
    /// alone, so any slice of the cases gives the same results as in one run.
    static func run(cases: Int, seed: UInt64, plans: [[UInt8]]) async -> Report {
        await onOwnThread { run(0..<cases, seed: seed, plans: plans) }
    }

    /// Runs the mutants numbered `indices`.
    static func run(_ indices: Range<Int>, seed: UInt64, plans: [[UInt8]]) -> Report {
        var report = Report()
        let loader = PlanLoader(environment: ["SURVEY_TOKEN": "t0k3n", "HOME": "/root"])
        for index in indices {
            var random = SplitMix64.derived(seed: seed, stream: UInt64(index))
            var bytes = plans[Int(random.next() % UInt64(plans.count))]
            let mutations = 1 + Int(random.next() % 4)
            for _ in 0..<mutations { mutate(&bytes, using: &random) }
            let text = String(decoding: bytes, as: UTF8.self)
            switch loader.load(data: bytes, path: "fuzz-\(index).plan") {
            case .success:
                report.valid += 1
            case .failure(let errors):
                report.invalid += 1
                let lines = PlanLines.split(text)
                for diagnostic in errors.diagnostics where !isInside(diagnostic.location, lines: lines) {
                    report.escapes.append("case \(index): \(diagnostic.location): \(diagnostic.message)")
                }
            }
        }
        return report
    }

    /// A location is inside when its line exists and its column is on it or just past its end.
    static func isInside(_ location: SourceLocation, lines: [[Unicode.Scalar]]) -> Bool {
        guard case .file = location.origin else { return false }
        guard location.line >= 1, location.line <= lines.count else { return false }
        return location.column >= 1 && location.column <= lines[location.line - 1].count + 1
    }

    static let insertions: [[UInt8]] = [
        "\"", "'", ":", ": ", "[", "]", ",", "\t", "${", "}", "#", "- ", "..", "%", "\\", "\r", "\n", "  ", "${X:-", "\u{FFFD}",
    ].map { Array($0.utf8) }

    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else {
            bytes = insertions[Int(random.next() % UInt64(insertions.count))]
            return
        }
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        let position = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 6 {
        case 0:  // flip a bit
            bytes[position] ^= UInt8(1) << UInt8(random.next() % 8)
            return
        case 1:  // delete a line
            lines.remove(at: Int(random.next() % UInt64(lines.count)))
        case 2:  // duplicate a line
            let i = Int(random.next() % UInt64(lines.count))
            lines.insert(lines[i], at: i)
        case 3:  // re-indent a line by 0–7 spaces
            let i = Int(random.next() % UInt64(lines.count))
            let body = lines[i].drop { $0 == UInt8(ascii: " ") }
            lines[i] = Array(repeating: UInt8(ascii: " "), count: Int(random.next() % 8)) + body
        case 4:  // insert a piece of syntax
            bytes.insert(contentsOf: insertions[Int(random.next() % UInt64(insertions.count))], at: position)
            return
        default:  // delete a few bytes
            let count = min(bytes.count - position, 1 + Int(random.next() % 6))
            bytes.removeSubrange(position..<(position + count))
            return
        }
        bytes = Array(lines.joined(separator: [UInt8(ascii: "\n")]))
    }
}
