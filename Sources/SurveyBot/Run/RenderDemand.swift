/// When the metrics listener renders one of its documents again: only while someone has asked
/// for it lately, and at most once an interval however many ask. Times in, decisions out: the
/// listener's task asks it, and tests run it on made-up instants.
struct RenderDemand: Sendable, Equatable {
    /// How long after the last request the rendering is still kept fresh: a page polls every
    /// second, Prometheus every 15 s to a minute.
    let keepWarm: Duration
    /// The least time between two renderings.
    let interval: Duration
    /// When it was last asked for; nil: never.
    private(set) var askedAt: ContinuousClock.Instant?
    /// When it was last rendered; nil: never.
    private(set) var renderedAt: ContinuousClock.Instant?
    /// How many times it was rendered.
    private(set) var renders = 0

    init(keepWarm: Duration, interval: Duration) {
        self.keepWarm = keepWarm
        self.interval = interval
    }

    /// Someone asked for it at `now`.
    mutating func asked(at now: ContinuousClock.Instant) {
        askedAt = now
    }

    /// Whether someone asked for it within `keepWarm` of `now`.
    func isWarm(at now: ContinuousClock.Instant) -> Bool {
        guard let askedAt else { return false }
        return now - askedAt <= keepWarm
    }

    /// Whether to render it at `now`: it is warm, and it was never rendered or not within the
    /// last interval.
    func isDue(at now: ContinuousClock.Instant) -> Bool {
        guard isWarm(at: now) else { return false }
        guard let renderedAt else { return true }
        return now - renderedAt >= interval
    }

    /// It was rendered at `now`.
    mutating func rendered(at now: ContinuousClock.Instant) {
        renderedAt = now
        renders += 1
    }
}
