/// A replay set beside its recording, step by step: each replayed attempt paired with the
/// recorded request its step stands for, their statuses and shapes compared, and the first step
/// where they part.
///
/// Attempts are paired in order: each with the first recorded request after the last one paired
/// that has its method and a path its step's pattern matches (`PathPattern`), so that what the
/// plan leaves out of a recording — its images and scripts, other origins' calls — is passed
/// over. Only the recording's requests to the plan's own origin take part, when it has any.
struct ReplayComparison: Sendable {
    /// One replayed attempt beside its recorded request.
    struct Row: Sendable {
        /// The step, and which call of it: `page #2`.
        var label: String
        /// The attempt.
        var attempt: ReplayedAttempt
        /// The recorded request paired with it, by its index in the recording; nil when none matched.
        var recorded: Int?
        /// The recorded status as shown: `200`, or `none` when the recording has no response.
        var recordedStatus: String
        /// The replayed status as shown: `403`, or what came instead (`timeout`).
        var replayedStatus: String
        /// How the two shapes compare: `same (JSON, 4 paths)`, `different: $.token missing`.
        var shape: String
        /// Why the attempt parts from the recording; nil when it matches it.
        var divergence: String?
    }

    /// Every replayed attempt, in order.
    var rows: [Row]
    /// The recorded requests, by index, that a step of the plan (named) stands for and that the
    /// replay never reached: the recording went on where the replay stopped.
    var unreplayed: [(index: Int, step: String)]
    /// The recording's requests, all of them, as the indices of `rows` and `unreplayed` count them.
    let recorded: [Exchange]

    /// The first row that parts from the recording; nil when every row matches (the replay may
    /// still have stopped short: `unreplayed`).
    var firstDivergence: Int? { rows.firstIndex { $0.divergence != nil } }

    /// Whether the replay sent something, every step matched, and it went as far as the recording.
    var matches: Bool { !rows.isEmpty && firstDivergence == nil && unreplayed.isEmpty }

    /// `replayed` beside `recorded`: `patterns` gives each step's pattern, in the journey's
    /// order; `origin` (`scheme://host:port`) is where the recording's survey was, nil when unknown.
    init(recorded: [Exchange], origin: String?, replayed: [ReplayedAttempt], patterns: [(step: String, pattern: PathPattern)]) {
        self.recorded = recorded
        let ofOrigin = recorded.indices.filter { recorded[$0].origin == origin }
        let candidates = origin == nil || ofOrigin.isEmpty ? Array(recorded.indices) : ofOrigin
        var calls: [String: Int] = [:]
        for attempt in replayed { calls[attempt.step, default: 0] += 1 }
        var cursor = 0
        var rows: [Row] = []
        for attempt in replayed {
            let pattern = patterns.first { $0.step == attempt.step }?.pattern
            let found = candidates[cursor...].firstIndex { pattern?.matches(recorded[$0]) ?? false }
            var pairedIndex: Int?
            if let found {
                pairedIndex = candidates[found]
                cursor = found + 1
            }
            rows.append(
                Self.row(
                    attempt, label: attempt.label(repeated: (calls[attempt.step] ?? 0) > 1),
                    recorded: pairedIndex.map { ($0, recorded[$0]) }))
        }
        self.rows = rows
        // Each request the replay never reached goes to the first step after the last one
        // named whose pattern matches it, as the journey walks on; else to the first that does.
        var next = replayed.last.flatMap { last in patterns.firstIndex { $0.step == last.step } }.map { $0 + 1 } ?? 0
        var unreplayed: [(index: Int, step: String)] = []
        for index in candidates[cursor...] {
            let matching = patterns.indices.filter { patterns[$0].pattern.matches(recorded[index]) }
            guard let position = matching.first(where: { $0 >= next }) ?? matching.first else { continue }
            unreplayed.append((index, patterns[position].step))
            next = max(next, position + 1)
        }
        self.unreplayed = unreplayed
    }

    /// One attempt compared with the recorded request paired with it, if any.
    private static func row(_ attempt: ReplayedAttempt, label: String, recorded: (index: Int, exchange: Exchange)?) -> Row {
        let replayedResponse = attempt.exchange.response
        let replayedStatus = replayedResponse.map { String($0.status) } ?? attempt.exchange.failure ?? "none"
        guard let recorded else {
            return Row(
                label: label, attempt: attempt, recorded: nil, recordedStatus: "—", replayedStatus: replayedStatus, shape: "—",
                divergence: "the recording has no \(attempt.exchange.method) request this step stands for after the steps before it")
        }
        let recordedResponse = recorded.exchange.response
        let recordedStatus = recordedResponse.map { String($0.status) } ?? "none"
        var divergence: String?
        var shape = "—"
        switch (recordedResponse, replayedResponse) {
        case (let before?, let now?):
            let recordedShape = ResponseShape(before)
            let replayedShape = ResponseShape(now)
            if let differences = recordedShape.differences(from: replayedShape) {
                shape = "different: " + differences.joined(separator: "; ")
            } else {
                shape =
                    recordedShape == .unknown || replayedShape == .unknown
                    ? "not compared: body not recorded" : "same (\(recordedShape.summary))"
            }
            if before.status != now.status {
                divergence = "status \(before.status) → \(now.status)"
            } else if shape.hasPrefix("different") {
                divergence = "its response has another shape: " + shape.dropFirst("different: ".count)
            }
        case (.some, nil):
            divergence = "no response (\(replayedStatus)) where the recording has \(recordedStatus)"
        case (nil, _):
            shape = "not compared: the recording has no response"
        }
        if divergence == nil, let refusal = attempt.refusal {
            let reason = refusal.reason.map { ": " + TerminalText.escaped($0, limit: 160) } ?? ""
            divergence = "the run counted it \(refusal.kind)\(reason)"
        }
        return Row(
            label: label, attempt: attempt, recorded: recorded.index, recordedStatus: recordedStatus, replayedStatus: replayedStatus,
            shape: shape,
            divergence: divergence)
    }
}
