import SurveyEngine
import SurveyJourney
import SurveyWire

/// The report's `plan_digest`: a SHA-256 of the plan as run, so that `merge` can tell the shards
/// of one plan from reports of another.
///
/// What is hashed is the plan's canonical form, made from the tables of keys: one `key: value`
/// line for every key of `PlanKeys.all`, defaults included, sorted by key, as each key's `digest`
/// says — a declared journey in `journey`'s line, each step's keys as `JourneyKeys.all` says. A
/// value is written as the report shows it (`Plan+Display.swift`) — a part from the environment
/// as `${NAME}`, query values as `***`, header names without their values — so that two runs of
/// one plan with different secrets share a digest, and no secret can be guessed back from it.
/// Numbers, durations and rates are hashed as read: another value is another plan. Left out:
/// what says how or where a run goes rather than what it does — the shard (every shard of a run
/// shares the digest), the threads, and the report settings.
extension Plan {
    /// Keys added after digests were first written, digested only when a plan gives them: a
    /// plan without them keeps the digest it had, so that `diff` across an upgrade does not
    /// call one plan two.
    static let digestedWhenGiven = Set(
        PlanKeys.all.filter {
            if case .whenGiven = $0.digest { true } else { false }
        }.map(\.path))

    /// The keys of the plan format the digest leaves out on purpose.
    static let digestLeavesOut = Set(
        PlanKeys.all.filter {
            if case .leftOut = $0.digest { $0.shape != .block } else { false }
        }.map(\.path))

    /// `sha256:` and the hexadecimal SHA-256 of `canonicalText`.
    var digest: String {
        "sha256:" + SHA256.hex(of: Array(canonicalText.utf8))
    }

    /// The canonical form: `key: value` lines, sorted by key, each ending in a newline.
    var canonicalText: String {
        canonicalEntries.map { "\($0.key): \($0.value)\n" }.joined()
    }

    /// Every digested key of the plan format with its value as shown, sorted by key.
    var canonicalEntries: [(key: String, value: String)] {
        PlanKeys.all.compactMap { key -> (key: String, value: String)? in
            switch key.digest {
            case .always(let value): (key.path, value(self))
            case .whenGiven(let value): value(self).map { (key.path, $0) }
            case .leftOut, .within: nil
            }
        }.sorted { $0.key < $1.key }
    }

    /// The declared journey, step by step, each item `key: value` as `JourneyKeys.all` says in
    /// the order they were first written in (`JourneyKeys.digestOrder`), then the step's retry
    /// policy; nil for the default journey.
    var canonicalJourney: String? {
        guard let journey = run.declaredJourney else { return nil }
        let steps = journey.steps.map { step in
            let base = JourneyKeys.path(step.step)
            let digesting = StepDigesting(plan: self, step: step, base: base)
            var items = JourneyKeys.inDigestOrder.compactMap { key -> String? in
                switch key.digest {
                case .always(let label, let value): "\(label): \(value(digesting))"
                case .whenGiven(let label, let value): value(digesting).map { "\(label): \($0)" }
                case .within: nil
                }
            }
            for key in JourneyKeys.retryKeys(step.step) {
                let label = key.path.dropFirst(base.count + 1)
                switch key.digest {
                case .always(let value): items.append("\(label): \(value(self))")
                case .whenGiven(let value): if let value = value(self) { items.append("\(label): \(value)") }
                case .leftOut, .within: break
                }
            }
            return "\(step.step.name): {" + items.joined(separator: ", ") + "}"
        }
        return "[" + steps.joined(separator: ", ") + "]"
    }

    /// A call of the default journey as the digest writes it: as shown, or `none` for a login
    /// the plan has not.
    func digestedCall(_ step: Step) -> String {
        run.api.call(step) == nil ? "none" : shownCall(step)
    }
}

/// A value as the plan digest writes it: what is parsed (numbers, durations, keywords) as
/// parsed, text as shown (`Plan+Display.swift`), with `${NAME}` for each part from the
/// environment. `path` is the key's.
protocol DigestValue {
    func digestText(in plan: Plan, at path: String) -> String
}

extension DigestValue where Self: RawRepresentable, RawValue == String {
    func digestText(in plan: Plan, at path: String) -> String { rawValue }
}

extension Int: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { String(self) }
}

extension UInt64: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { String(self) }
}

extension Double: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { "\(self)" }
}

extension Bool: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { String(self) }
}

extension Duration: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { compactDescription }
}

extension ThinkTime: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { description }
}

extension DurationRange: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { description }
}

extension String: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { plan.shownText(path, self) }
}

extension JSONPath: DigestValue {
    func digestText(in plan: Plan, at path: String) -> String { plan.shownText(path, text) }
}

extension HTTPVersion: DigestValue {}
extension ConnectionSharing: DigestValue {}
extension QuestionOrder: DigestValue {}
extension DataOrder: DigestValue {}
extension Backoff.Strategy: DigestValue {}
extension Jitter: DigestValue {}
extension TLSConfiguration.Version: DigestValue {}
extension SurveyStyle: DigestValue {}
extension ServedSurvey: DigestValue {}
extension JourneyStep.Runs: DigestValue {}
