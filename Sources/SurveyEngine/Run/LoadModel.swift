/// How respondents arrive.
public enum LoadModel: Sendable, Hashable {
    /// `respondents` in total, each taking the survey once, at most `concurrency` at once.
    case closed(respondents: Int)
    /// New respondents arrive at `rate` (if set) and then follow the `ramp` stages; arrivals
    /// beyond `concurrency` in flight are dropped and counted.
    case open(rate: Rate?, ramp: [RampStage])

    /// Whether respondents arrive on a schedule.
    public var isOpen: Bool {
        if case .open = self { return true }
        return false
    }
}
