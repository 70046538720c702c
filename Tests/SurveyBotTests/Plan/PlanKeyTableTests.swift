import Foundation
import Testing

@testable import SurveyBot

/// The key reference of docs/plan-format.md: one table per block, between markers, made from
/// `PlanKeys.all`. `SURVEY_BOT_UPDATE_DOCS=1 swift test --filter PlanKeyTableTests` rewrites it.
enum PlanKeyReference {
    static let path = repositoryPath("docs/plan-format.md")

    /// The blocks that have a table: the top level, every block with value keys under it, and
    /// a journey's step (`JourneyKeys`, for a step named `<step>`).
    static var blocks: [String] {
        var blocks = [""]
        for key in PlanKeys.all where key.shape == .block && PlanKeys.children(of: key.path).contains(where: { $0.shape != .block }) {
            blocks.append(key.path)
        }
        return blocks + [stepBlock]
    }

    static let stepBlock = "journey.<step>"

    /// The keys of a block: the table's, or a step's.
    static func children(of block: String) -> [PlanKey] {
        block == stepBlock ? JourneyKeys.documented.filter { $0.parent == block } : PlanKeys.children(of: block)
    }

    static func marker(_ block: String) -> String { "<!-- plan-keys: \(block.isEmpty ? "top level" : block) -->" }
    static let end = "<!-- /plan-keys -->"

    static func table(_ block: String) -> String {
        var lines = ["| key | kind | default | meaning |", "|---|---|---|---|"]
        for key in children(of: block) where !(block.isEmpty == false && key.shape == .block && block != stepBlock) {
            lines.append("| `\(key.name)` | \(key.kind) | \(key.defaultText) | \(key.doc) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The document with every marked region made anew from the table.
    static func regenerated(_ document: String) -> String {
        var text = document
        for block in blocks {
            guard let start = text.range(of: marker(block)), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
            else { continue }
            text.replaceSubrange(start.upperBound..<stop.lowerBound, with: "\n" + table(block) + "\n")
        }
        return text
    }
}

@Suite struct PlanKeyTableTests {
    @Test func theKeyReferenceInTheDocsIsTheTable() throws {
        let document = try String(contentsOfFile: PlanKeyReference.path, encoding: .utf8)
        let regenerated = PlanKeyReference.regenerated(document)
        if ProcessInfo.processInfo.environment["SURVEY_BOT_UPDATE_DOCS"] == "1", regenerated != document {
            try regenerated.write(toFile: PlanKeyReference.path, atomically: true, encoding: .utf8)
            return
        }
        for block in PlanKeyReference.blocks {
            #expect(document.contains(PlanKeyReference.marker(block)), "docs/plan-format.md has no table for '\(block)'")
        }
        #expect(
            regenerated == document,
            "docs/plan-format.md's key tables differ from PlanKeys.all; run SURVEY_BOT_UPDATE_DOCS=1 swift test --filter PlanKeyTableTests")
    }

    @Test func theDocsNameNoKeyThatDoesNotExist() throws {
        let document = try String(contentsOfFile: PlanKeyReference.path, encoding: .utf8)
        var documented = Set<String>()
        var block: String?
        for line in document.split(separator: "\n") {
            if line.hasPrefix("<!-- plan-keys: ") {
                let name = line.dropFirst("<!-- plan-keys: ".count).dropLast(" -->".count)
                block = name == "top level" ? "" : String(name)
            } else if line == PlanKeyReference.end {
                block = nil
            } else if let block, line.hasPrefix("| `"), let close = line.dropFirst(3).firstIndex(of: "`") {
                let name = String(line.dropFirst(3)[..<close])
                documented.insert(block.isEmpty ? name : "\(block).\(name)")
            }
        }
        let known = Set(PlanKeys.all.map(\.path) + PlanKeyReference.children(of: PlanKeyReference.stepBlock).map(\.path))
        #expect(documented.subtracting(known).isEmpty, "documented but not keys: \(documented.subtracting(known).sorted())")
        // A step's retry keys are `retry.submit`'s, documented there.
        let undocumented = known.subtracting(documented).filter {
            (PlanKeys.byPath[$0]?.shape != .block || PlanKeys.children(of: $0).isEmpty)
                && !$0.hasPrefix(PlanKeyReference.stepBlock + ".retry.")
        }
        #expect(undocumented.isEmpty, "keys missing from the docs: \(undocumented.sorted())")
    }

    /// A key written with the default the reference shows gives the plan every default gives.
    @Test func documentedDefaultsAreTheDefaults() throws {
        let defaults = Plan.defaults(name: "test")
        // `budget_min` alone is an error (it needs `budget`), and so is `data_order` (it needs `data`).
        let skipped: Set<String> = ["retry.budget_min", "data_order"]
        var unchecked: Set<String> = []
        for key in PlanKeys.all where key.shape == .value {
            let text = key.defaultText
            guard !skipped.contains(key.path), text.hasPrefix("`"), text.hasSuffix("`"), text.filter({ $0 == "`" }).count == 2
            else {
                unchecked.insert(key.path)
                continue
            }
            var overrides = PlanOverrides()
            try overrides.set(assignment: "\(key.path)=\(text.dropFirst().dropLast())")
            guard let plan = expectPlan("", overrides: overrides) else { continue }
            #expect(plan == defaults, "\(key.path): \(text) is not the default")
        }
        // Every other value key's default is checked above. These are the keys whose default is
        // a description rather than a value ("none", "chosen at random", "the `timeout`"), and
        // `budget_min`: a key added with a value for its default is checked, not left out.
        #expect(
            unchecked == [
                "name", "duration", "grace", "rate", "ramp", "connect_timeout", "seed", "retry.budget", "retry.budget_min", "pace",
                "builtin.questions_file", "tls.ca_file", "tls.client_cert", "tls.client_key", "tls.server_name", "engine.threads",
                "data", "data_order", "api.questions_list", "api.submit_body", "api.login", "api.login_body", "proxy",
            ])
    }

    @Test func everyKeySitsInABlockOfTheTable() {
        for key in PlanKeys.all where !key.parent.isEmpty {
            #expect(PlanKeys.byPath[key.parent]?.shape == .block, "\(key.path) has no block '\(key.parent)'")
        }
        #expect(PlanKeys.byPath.count == PlanKeys.all.count, "a key path is listed twice")
    }
}
