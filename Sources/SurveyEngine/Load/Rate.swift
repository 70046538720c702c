/// Arrivals per unit of time, as in `rate: 20/s` or `600/m`.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
    /// Arrivals per second; always greater than zero.
    public var perSecond: Double

    public init(perSecond: Double) {
        self.perSecond = perSecond
    }

    public var description: String {
        if perSecond == perSecond.rounded() { return "\(Int(perSecond))/s" }
        let perMinute = perSecond * 60
        if perMinute == perMinute.rounded() { return "\(Int(perMinute))/m" }
        return "\(perSecond)/s"
    }
}

/// One stage of an open-model ramp: move linearly to `target` over `duration`.
public struct RampStage: Sendable, Hashable {
    public var duration: Duration
    public var target: Rate

    public init(duration: Duration, target: Rate) {
        self.duration = duration
        self.target = target
    }
}

/// The order in which a respondent walks the questions.
public enum QuestionOrder: String, Sendable, Hashable, CaseIterable {
    case sequential
    case random
    case reverse
}
