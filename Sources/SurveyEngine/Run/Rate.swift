/// Arrivals per unit of time, as in `rate: 20/s` or `600/m`.
public struct Rate: Sendable, Hashable, CustomStringConvertible {
    /// Arrivals per second: above zero for a steady rate; a ramp stage may ramp down to zero.
    public var perSecond: Double

    /// A rate of `perSecond` arrivals per second; the plan's `600/m` is `Rate(perSecond: 10)`.
    public init(perSecond: Double) {
        self.perSecond = perSecond
    }

    /// The plan's spelling: per second when that is a whole number (`20/s`), else per minute
    /// when that is (`1/m`), else a decimal per second.
    public var description: String {
        if perSecond == perSecond.rounded() { return "\(Int(perSecond))/s" }
        let perMinute = perSecond * 60
        if perMinute == perMinute.rounded() { return "\(Int(perMinute))/m" }
        return "\(perSecond)/s"
    }
}

/// One stage of an open-model ramp: move linearly to `target` over `duration`.
public struct RampStage: Sendable, Hashable {
    /// How long the move takes; a stage of zero length jumps to `target` at once.
    public var duration: Duration
    /// The rate at the end of the stage, where the next stage starts from.
    public var target: Rate

    /// A stage that reaches `target` after `duration`, from the rate the previous stage left.
    public init(duration: Duration, target: Rate) {
        self.duration = duration
        self.target = target
    }
}
