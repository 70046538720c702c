import SurveyMetrics

/// One attempt of the replay: the step it belongs to, which call of that step it was, what it
/// sent and received, and how the run counted it.
struct ReplayedAttempt: Sendable {
    /// The step's name, as the plan writes it.
    var step: String
    /// Which call of the step it was, from 1: a page loop's pages, a step per question's submits.
    var call: Int
    /// What it sent and what came back.
    var exchange: Exchange
    /// How the run counted an attempt whose response it refused: `malformed_response` (a
    /// capture or the questions missing) or `rejected` (an `expect` check), with the run's
    /// reason, its secrets masked; nil for one counted by its status, or that got none.
    var refusal: (kind: String, reason: String?)?

    /// The step and, for a step called more than once, which call: `page #2`.
    func label(repeated: Bool) -> String {
        repeated ? "\(step) #\(call)" : step
    }

    /// The attempts of a replay: `exchanges`, as the recording transport kept them in the
    /// order they went out, each given its step by the run's own log of its attempts (`logged`,
    /// in any order). One respondent sends one attempt at a time, so the n-th exchange is the
    /// n-th attempt logged; one that never left (`local_resource`), which the run does not log
    /// as an attempt, is left out.
    static func attempts(exchanges: [Exchange], logged: [LoggedAttempt]) -> [ReplayedAttempt] {
        let sent = exchanges.filter { $0.failure != "local_resource" }
        let inOrder = logged.sorted { $0.start < $1.start }
        var calls: [String: Int] = [:]
        var attempts: [ReplayedAttempt] = []
        for (exchange, log) in zip(sent, inOrder) {
            let step = log.step.name
            if log.attempt == 1 { calls[step, default: 0] += 1 }
            var refusal: (String, String?)?
            if let kind = log.error, kind == .malformedResponse || kind == .rejected, exchange.response != nil {
                refusal = (kind.rawValue, log.reason)
            }
            attempts.append(ReplayedAttempt(step: step, call: max(1, calls[step] ?? 1), exchange: exchange, refusal: refusal))
        }
        return attempts
    }
}
