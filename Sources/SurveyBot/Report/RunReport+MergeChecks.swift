import Foundation
import SurveyEngine
import SurveyJourney

/// What `merge` checks before it adds anything up: that the reports are the shards of one run
/// of one plan, each shard once, none missing — and every way they are not, each problem
/// naming the files it is in.
extension RunReport {
    /// What is known of the shards to merge once they passed the checks.
    struct ShardSet {
        /// How many shards the run was cut into.
        var count: Int
        /// The shards given, sorted.
        var merged: [Int]
        /// The shards not given, sorted; empty for a complete set.
        var missing: [Int]
    }

    /// The shards the reports make up, or every problem found with them. Missing shards are a
    /// problem unless `allowPartial`.
    static func checkShards(_ parts: [(path: String, report: RunReport)], allowPartial: Bool) -> Result<ShardSet, MergeError> {
        var problems: [String] = []
        var checkable: [(path: String, report: RunReport, shard: ShardRecord)] = []
        for (path, report) in parts {
            if report.partial == true {
                let missing = report.missingShardsText.map { " (\($0))" } ?? ""
                problems.append("\(path) is a partial merge\(missing): merge the shards' own reports")
            } else if report.runID == nil || report.planDigest == nil || report.shard == nil {
                problems.append(
                    "\(path) has no run_id: it was written before reports named their run, so merge cannot tell which run or plan it "
                        + "belongs to; run the shards again with the same --run-id")
            } else if let shard = report.shard {
                checkable.append((path, report, shard))
            }
        }
        let byRun = groups(checkable) { $0.report.runID ?? "" }
        if byRun.count > 1 {
            problems.append(
                "reports of different runs: " + byRun.map { "run id '\($0.key)' in \(files($0.members))" }.joined(separator: "; ")
                    + " (give every shard of a run the same --run-id)")
        }
        let byPlan = groups(checkable) { $0.report.planDigest ?? "" }
        if byPlan.count > 1 {
            problems.append("reports of different plans: " + planDifferences(byPlan.map { $0.members.map { ($0.path, $0.report) } }))
        }
        let bySeed = groups(checkable) { String($0.report.seed) }
        if byRun.count == 1 && byPlan.count == 1 && bySeed.count > 1 {
            problems.append(
                "shards of one run with different seeds: " + bySeed.map { "seed \($0.key) in \(files($0.members))" }.joined(separator: "; ")
                    + " (give the plan a seed, or run the shards again with this version, which derives the seed from --run-id)")
        }
        let byLatency = groups(checkable) { $0.report.keepsFailedLatencyApart ? "apart" : "in" }
        if byLatency.count > 1 {
            let files = byLatency.map { group in (group.key, self.files(group.members)) }
            problems.append(
                "reports of different versions: the latency leaves failed attempts out in "
                    + (files.first { $0.0 == "apart" }?.1 ?? "") + " and counts them in "
                    + (files.first { $0.0 == "in" }?.1 ?? "") + " (run every shard with one version)")
        }
        let byCount = groups(checkable) { String($0.shard.count) }
        if byCount.count > 1 {
            problems.append(
                "reports of runs cut into different numbers of shards: "
                    + byCount.map { "\($0.key) in \(files($0.members))" }.joined(separator: "; "))
        }
        for group in groups(checkable, by: { $0.shard.description }) where group.members.count > 1 {
            let members = group.members
            let times = members.count == 2 ? "twice" : "\(members.count) times"
            let paths = members.map(\.path)
            let list = paths.dropLast().joined(separator: ", ") + " and " + paths[paths.count - 1]
            problems.append("shard \(group.key) given \(times): \(list)\(sameness(members))")
        }
        var shardSet = ShardSet(count: 0, merged: [], missing: [])
        if byCount.count == 1, let count = checkable.first?.shard.count {
            let given = Set(checkable.map(\.shard.index))
            shardSet = ShardSet(count: count, merged: given.sorted(), missing: (1...count).filter { !given.contains($0) })
            if !shardSet.missing.isEmpty && !allowPartial {
                problems.append("\(missingText(shardSet.missing, of: count)) (--allow-partial merges the rest, marked partial)")
            }
        }
        return problems.isEmpty ? .success(shardSet) : .failure(MergeError(problems: problems))
    }

    /// `missing shard 3 of 4`, `missing shards 2, 3 of 4`: a long list is cut after ten.
    static func missingText(_ missing: [Int], of count: Int) -> String {
        var list = missing.prefix(10).map(String.init).joined(separator: ", ")
        if missing.count > 10 { list += ", … (\(missing.count) in all)" }
        return "missing shard\(missing.count == 1 ? "" : "s") \(list) of \(count)"
    }

    /// For a partial merge, which shards it lacks: `missing shard 3 of 4`; nil otherwise.
    var missingShardsText: String? {
        guard partial == true, let missing = missingShards, !missing.isEmpty else { return nil }
        return Self.missingText(missing, of: missing.count + (mergedShards?.count ?? 0))
    }

    /// `3 of 4 shards` for a partial merge, `4 of 4 shards` for a complete one.
    var shardsMergedText: String {
        let merged = mergedShards?.count ?? 1
        return "\(merged) of \(merged + (missingShards?.count ?? 0)) shards"
    }

    /// The members of `items` grouped by `key`, groups in the order their first member came.
    private static func groups<T>(_ items: [T], by key: (T) -> String) -> [(key: String, members: [T])] {
        var result: [(key: String, members: [T])] = []
        for item in items {
            let k = key(item)
            if let index = result.firstIndex(where: { $0.key == k }) {
                result[index].members.append(item)
            } else {
                result.append((k, [item]))
            }
        }
        return result
    }

    /// The paths of `members`, each once, the first five of a longer list and how many more.
    private static func files(_ members: [(path: String, report: RunReport, shard: ShardRecord)]) -> String {
        names(members.map(\.path))
    }

    static func names(_ paths: [String]) -> String {
        let unique = paths.reduce(into: [String]()) { list, path in
            if !list.contains(path) { list.append(path) }
        }
        guard unique.count > 5 else { return unique.joined(separator: ", ") }
        return unique.prefix(5).joined(separator: ", ") + " and \(unique.count - 5) more"
    }

    /// ` (the same file)` when the paths name one file, ` (the same report)` when the files hold
    /// one report, else nothing.
    private static func sameness(_ members: [(path: String, report: RunReport, shard: ShardRecord)]) -> String {
        let resolved = Set(members.map { URL(fileURLWithPath: $0.path).standardizedFileURL.resolvingSymlinksInPath().path })
        if resolved.count == 1 { return " (the same file)" }
        if members.dropFirst().allSatisfy({ $0.report == members[0].report }) { return " (the same report)" }
        return ""
    }

    /// What differs between the plans of groups of reports, each group one plan: the fields of
    /// the report's `plan` and its thresholds; or, when those are all alike, the digests.
    private static func planDifferences(_ groups: [[(path: String, report: RunReport)]]) -> String {
        let firsts = groups.map { $0[0].report }
        func shown(_ group: [(path: String, report: RunReport)]) -> String { names(group.map(\.path)) }
        let fields = firsts.map(planFields)
        var differences: [String] = []
        let keys = Set(fields.flatMap(\.keys)).sorted()
        for key in keys {
            let values = fields.map { $0[key] ?? "none" }
            guard Set(values).count > 1 else { continue }
            differences.append("\(key): " + zip(values, groups).map { "\($0) in \(shown($1))" }.joined(separator: "; "))
        }
        if differences.isEmpty {
            let digests = zip(firsts, groups).map { "\($0.planDigest.map { String($0.prefix(19)) + "…" } ?? "none") in \(shown($1))" }
            return "the plans differ in a setting the report does not show (plan_digest " + digests.joined(separator: "; ") + ")"
        }
        return differences.joined(separator: ", and ")
    }

    /// The report's plan and thresholds as `field: value` pairs, nested fields by dotted name.
    private static func planFields(_ report: RunReport) -> [String: String] {
        var fields = ["thresholds": "[" + report.thresholds.map(\.threshold.planText).joined(separator: ", ") + "]"]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(report.plan), case .success(.object(let members)) = JSONValue.parse(data) else {
            return fields
        }
        func text(_ value: JSONValue) -> String {
            if case .string(let string) = value { return string }
            return value.prettyText().split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                separator: " ")
        }
        for (name, value) in members {
            if case .object(let inner) = value {
                for (innerName, innerValue) in inner { fields["\(name).\(innerName)"] = text(innerValue) }
            } else {
                fields[name] = text(value)
            }
        }
        return fields
    }
}
