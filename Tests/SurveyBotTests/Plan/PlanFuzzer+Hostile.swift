@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// Plans made to hurt the parser rather than mistakes: deep indentation, very long lines, NULs,
/// terminal escape sequences, binary garbage and files past the size limit. Each case is read
/// as the command line reads a file and its diagnostics rendered as the command line prints
/// them; what is checked is that nothing crashes and what would be printed stays small and free
/// of the file's control characters.
extension PlanFuzzer {
    struct HostileReport: Sendable {
        var cases = 0
        /// Each kind of input and how many cases of it ran.
        var kinds: [String: Int] = [:]
        /// The largest rendering of one case's errors, in bytes.
        var largestOutput = 0
        /// Cases whose rendering was too large, held a control character, or pointed outside the file.
        var failures: [String] = []
    }

    static let hostileKinds = ["deep indentation", "long lines", "NULs", "escape sequences", "binary garbage", "huge file"]

    /// The most one case may print: 20 diagnostics of a few hundred bytes and the summary.
    static let outputBound = 64 * 1024

    /// Runs `cases` hostile plans on a thread of its own (`onOwnThread`), like `run`.
    static func runHostile(cases: Int, seed: UInt64, plans: [[UInt8]]) async -> HostileReport {
        await onOwnThread { hostileReport(cases: cases, seed: seed, plans: plans) }
    }

    static func hostileReport(cases: Int, seed: UInt64, plans: [[UInt8]]) -> HostileReport {
        var report = HostileReport()
        let loader = PlanLoader(environment: ["SURVEY_TOKEN": "t0k3n"])
        for index in 0..<cases {
            var random = SplitMix64.derived(seed: seed, stream: UInt64(index))
            let kind = index % hostileKinds.count
            let bytes = hostile(kind: kind, plans: plans, using: &random)
            report.cases += 1
            report.kinds[hostileKinds[kind], default: 0] += 1
            guard case .failure(let errors) = loader.load(data: bytes, path: "hostile-\(index).plan") else { continue }
            let output = errors.printed(path: "hostile-\(index).plan").joined(separator: "\n")
            report.largestOutput = max(report.largestOutput, output.utf8.count)
            let name = "case \(index) (\(hostileKinds[kind]), \(bytes.count) bytes)"
            if output.utf8.count > outputBound {
                report.failures.append("\(name): \(output.utf8.count) bytes of diagnostics")
            }
            if output.unicodeScalars.contains(where: { isUnsafeForATerminal($0) }) {
                report.failures.append("\(name): a control character reached the output")
            }
            let lines = PlanLines.split(String(decoding: bytes.prefix(PlanLimits.maxFileBytes + 1), as: UTF8.self))
            for diagnostic in errors.diagnostics.prefix(20) where !isInside(diagnostic.location, lines: lines) {
                report.failures.append("\(name): \(diagnostic.location) is outside the file")
            }
        }
        return report
    }

    /// What a terminal could act on: C0 and C1 controls (a tab and a line break aside), DEL,
    /// and the bidirectional overrides that reorder what is shown.
    static func isUnsafeForATerminal(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\n" || scalar == "\t" { return false }
        return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value)
    }

    static func hostile(kind: Int, plans: [[UInt8]], using random: inout SplitMix64) -> [UInt8] {
        let plan = plans[Int(random.next() % UInt64(plans.count))]
        switch kind {
        case 0:  // deep indentation: up to 1,400 levels (about what fits in 1 MiB), maps and lists
            let levels = 1 + Int(random.next() % 1_400)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(levels * levels / 2 + levels * 10)
            for level in 0..<levels {
                bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level))
                if random.next() % 4 == 0 { bytes.append(contentsOf: "- ".utf8) }
                bytes.append(contentsOf: "k\(level):\n".utf8)
            }
            return bytes
        case 1:  // very long lines: a key, a value or a comment of 60 KiB to 200 KiB
            let length = 60_000 + Int(random.next() % 140_000)
            let filler = String(repeating: ["a", "é", " ", "\"", "\u{1B}"][Int(random.next() % 5)], count: length)
            let line = ["name: ", "", "# ", "target: http://h/"][Int(random.next() % 4)] + filler
            return plan + Array((line + "\n").utf8)
        case 2:  // NULs at random places of a valid plan
            var bytes = plan
            for _ in 0...Int(random.next() % 4) { bytes.insert(0, at: Int(random.next() % UInt64(bytes.count + 1))) }
            return bytes
        case 3:  // terminal escape sequences, C1 controls and bidi overrides in keys and values
            let sequences = [
                "\u{1B}[2J", "\u{1B}]0;pwned\u{07}", "\u{9B}31m", "\u{202E}", "\u{2066}", "\u{1B}[31m", "\u{08}\u{08}", "\u{7F}",
            ]
            var text = String(decoding: plan, as: UTF8.self)
            for _ in 0...Int(random.next() % 6) {
                let offset = Int(random.next() % UInt64(text.unicodeScalars.count + 1))
                let index = text.unicodeScalars.index(text.unicodeScalars.startIndex, offsetBy: offset)
                text.unicodeScalars.insert(contentsOf: sequences[Int(random.next() % UInt64(sequences.count))].unicodeScalars, at: index)
            }
            return Array(text.utf8)
        case 4:  // binary garbage, with a plan's first line or without
            let count = 1 + Int(random.next() % 200_000)
            let garbage = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return random.next() % 2 == 0 ? garbage : Array(plan.prefix(40)) + garbage
        default:  // huge files: just under or over 1 MiB of errors, comments or valid keys
            let line = Array(["x\n", "# c\n", "zz: 1\n", "  - a\n"][Int(random.next() % 4)].utf8)
            let target = PlanLimits.maxFileBytes - 100 + Int(random.next() % 1_000)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(target + line.count)
            while bytes.count < target { bytes.append(contentsOf: line) }
            return Array(bytes.prefix(target))
        }
    }
}
