import SurveyJourney
import SurveyWire

/// What a run did over time: one point per interval of wall-clock time, each with its attempts,
/// outcomes, latency histogram and respondents.
///
/// Intervals lie on a grid of wall-clock time — interval *n* covers `n × interval ..< (n + 1) ×
/// interval` nanoseconds since 1970 — so that timelines of shards that ran at once, on
/// different machines, fall on the same intervals and add up exactly. There are never more
/// than `maxIntervals` points: when a run outgrows them, neighbours merge in pairs (along the
/// grid of the doubled interval) and the interval doubles, so memory stays bounded however long
/// a run goes on.
///
/// Attempts count in the interval in which they started, like `RunMetrics.attemptsPerSecond`.
public struct Timeline: Sendable, Hashable {
    /// The most points a timeline keeps.
    public static let maxIntervals = 720

    /// The length of one interval in nanoseconds; 0 for a timeline that records nothing (off).
    public private(set) var interval: UInt64
    /// When the run began, in nanoseconds since 1970: attempt start times count from it.
    public private(set) var origin: UInt64
    /// The number, on the wall-clock grid, of the interval of the first point.
    private var firstIndex: UInt64
    /// One point per interval from the first on, without gaps.
    public private(set) var points: [TimelinePoint] = []
    /// The steps each new point counts from the start, in the journey's order.
    private var journey: [Step]

    /// A timeline of intervals of `interval` nanoseconds (0: off) for a run that began at
    /// `origin` nanoseconds since 1970, counting each of `steps` in every point.
    public init(interval: UInt64 = 0, origin: UInt64 = 0, steps: [Step] = []) {
        self.interval = interval
        self.origin = origin
        journey = steps
        firstIndex = interval == 0 ? 0 : origin / interval
    }

    /// The steps the timeline counts: the journey's, in its order, then any other step an
    /// attempt was counted for, in the order first met.
    public var steps: [Step] {
        var steps = journey
        for point in points {
            for step in point.perStep.steps where !steps.contains(step) { steps.append(step) }
        }
        return steps
    }

    /// Whether the timeline records anything.
    public var isEnabled: Bool { interval > 0 }

    /// When the first point's interval begins, in nanoseconds since 1970: a multiple of
    /// `interval`, at or before the run's start.
    public var start: UInt64 { firstIndex &* interval }

    /// The point holding the moment `nanoseconds` after the run began, made (and the timeline
    /// coarsened) as needed; nil when the timeline is off.
    @inline(__always)
    private mutating func pointIndex(at nanoseconds: UInt64) -> Int? {
        guard interval > 0 else { return nil }
        var position = (origin &+ nanoseconds) / interval &- firstIndex
        if position >= UInt64(points.count) {
            while position >= UInt64(Self.maxIntervals) {
                coarsen()
                position = (origin &+ nanoseconds) / interval &- firstIndex
            }
            while UInt64(points.count) <= position { points.append(TimelinePoint(steps: journey)) }
        }
        return Int(position)
    }

    /// The end of point `position`'s interval, in nanoseconds since the run began.
    private func end(of position: Int) -> Int64 {
        Int64(bitPattern: (firstIndex &+ UInt64(position) &+ 1) &* interval &- origin)
    }

    /// Counts one attempt in the interval it started in. Attempts never sent (`local_resource`)
    /// are not in the timeline.
    mutating func add(_ record: AttemptRecord) {
        guard !StepMetrics.isLocal(record), let position = pointIndex(at: record.start) else { return }
        points[position][record.step].add(record)
    }

    /// Counts a respondent that began `nanoseconds` after the run began.
    mutating func respondentStarted(at nanoseconds: UInt64) {
        guard let position = pointIndex(at: nanoseconds) else { return }
        points[position].respondentsStarted += 1
        points[position].activeTime += end(of: position) - Int64(nanoseconds)
    }

    /// Counts a respondent that ended `nanoseconds` after the run began.
    mutating func respondentFinished(at nanoseconds: UInt64) {
        guard let position = pointIndex(at: nanoseconds) else { return }
        points[position].respondentsFinished += 1
        points[position].activeTime -= end(of: position) - Int64(nanoseconds)
    }

    /// Counts the lateness, `lag` nanoseconds, of an arrival or a wait that ended `nanoseconds`
    /// after the run began.
    mutating func lagged(by lag: UInt64, at nanoseconds: UInt64) {
        guard let position = pointIndex(at: nanoseconds) else { return }
        points[position].lag.record(lag)
    }

    /// Counts an open-model arrival dropped `nanoseconds` after the run began.
    mutating func dropped(at nanoseconds: UInt64) {
        guard let position = pointIndex(at: nanoseconds) else { return }
        points[position].dropped += 1
    }

    /// How many respondents were under way in each interval, on average over the interval:
    /// the time respondents spent in it, divided by its length. Adds up across shards.
    public var respondentsActive: [Double] {
        var running: Int64 = 0
        return points.map { point in
            let time = running * Int64(interval) + point.activeTime
            running += Int64(point.respondentsStarted - point.respondentsFinished)
            return Double(time) / Double(interval)
        }
    }

    /// Merges neighbours in pairs along the grid of twice the interval, and doubles it.
    mutating func coarsen() {
        guard interval > 0 else { return }
        let newFirst = firstIndex / 2
        var merged: [TimelinePoint] = []
        if !points.isEmpty {
            let last = firstIndex + UInt64(points.count) - 1
            merged = Array(repeating: TimelinePoint(steps: journey), count: Int(last / 2 - newFirst + 1))
            for (position, point) in points.enumerated() {
                let number = firstIndex + UInt64(position)
                // The first of a pair ends one old interval before the merged one does.
                merged[Int(number / 2 - newFirst)].merge(point, endingEarlierBy: number % 2 == 0 ? interval : 0)
            }
        }
        points = merged
        firstIndex = newFirst
        interval *= 2
    }

    /// Adds another timeline of the same run (another lane's): the finer of the two is
    /// coarsened to the other's interval, and points add up interval by interval.
    public mutating func merge(_ other: Timeline) {
        guard other.isEnabled else { return }
        guard isEnabled else {
            self = other
            return
        }
        var other = other
        for step in other.journey where !journey.contains(step) { journey.append(step) }
        while interval < other.interval { coarsen() }
        while other.interval < interval { other.coarsen() }
        guard !other.points.isEmpty else { return }
        guard !points.isEmpty else {
            points = other.points
            firstIndex = other.firstIndex
            origin = other.origin
            return
        }
        let first = min(firstIndex, other.firstIndex)
        let last = max(firstIndex + UInt64(points.count), other.firstIndex + UInt64(other.points.count))
        var combined = Array(repeating: TimelinePoint(steps: journey), count: Int(last - first))
        for (position, point) in points.enumerated() { combined[Int(firstIndex - first) + position].merge(point, endingEarlierBy: 0) }
        for (position, point) in other.points.enumerated() {
            combined[Int(other.firstIndex - first) + position].merge(point, endingEarlierBy: 0)
        }
        points = combined
        firstIndex = first
        origin = min(origin, other.origin)
        while points.count > Self.maxIntervals { coarsen() }
    }
}

/// One interval of a timeline.
public struct TimelinePoint: Sendable, Hashable {
    /// Each step's attempts that started in the interval, in the journey's order.
    public var perStep: StepTable<TimelineStep>
    /// Respondents that began the survey in the interval.
    public var respondentsStarted = 0
    /// Respondents whose survey ended in the interval.
    public var respondentsFinished = 0
    /// Open model: arrivals dropped in the interval because `concurrency` respondents were in
    /// flight.
    public var dropped = 0
    /// Nanoseconds: for each respondent that began in the interval, the time from its start to
    /// the interval's end, minus the same for each that ended in it. With the respondents under
    /// way when the interval began, it gives the time respondents spent in it
    /// (`Timeline.respondentsActive`), and it adds up.
    var activeTime: Int64 = 0
    /// Nanoseconds: how late each arrival started and each wait ended in the interval
    /// (`RunMetrics.arrivalLag` and `timerLag` together): the tool's own lateness.
    public var lag = SparseHistogram()

    /// Nothing counted yet, for each of `steps`.
    public init(steps: [Step] = []) {
        perStep = StepTable(steps, initial: TimelineStep())
    }

    /// One step's part; empty for a step with no attempt in the interval.
    public subscript(step: Step) -> TimelineStep {
        get { perStep[step] }
        _modify { yield &perStep[step] }
    }

    /// Adds `other`, whose interval ends `shift` nanoseconds before this one's.
    mutating func merge(_ other: TimelinePoint, endingEarlierBy shift: UInt64) {
        perStep.merge(other.perStep)
        respondentsStarted += other.respondentsStarted
        respondentsFinished += other.respondentsFinished
        dropped += other.dropped
        lag.merge(other.lag)
        activeTime += other.activeTime + Int64(shift) * Int64(other.respondentsStarted - other.respondentsFinished)
    }
}

/// One step's attempts in one interval of a timeline.
public struct TimelineStep: Sendable, Hashable, Mergeable {
    /// HTTP attempts that started in the interval.
    public var attempts = 0
    /// Of those, the ones that succeeded.
    public var succeeded = 0
    /// Of those, the ones that failed: `succeeded + failed == attempts`.
    public var failed = 0
    /// Attempts beyond the first of their call: retries.
    public var retries = 0
    /// Failed attempts without a usable response, by why.
    public var errors: [ErrorKind: Int] = [:]
    /// Failed attempts that got a response, by its status.
    public var failedStatuses: [Int: Int] = [:]
    /// The corrected latency of every succeeded attempt, in nanoseconds, like
    /// `StepMetrics.correctedLatency`: failed attempts' time to fail is not a latency.
    public var latency = SparseHistogram()

    /// Nothing counted yet.
    public init() {}

    /// Counts one attempt.
    mutating func add(_ record: AttemptRecord) {
        attempts += 1
        if record.attempt > 1 { retries += 1 }
        if record.succeeded {
            succeeded += 1
            latency.record(record.correctedLatency.clampedNanoseconds)
        } else {
            failed += 1
            switch record.outcome {
            case .status(let status): failedStatuses.add(1, to: status)
            case .error(let kind): errors.add(1, to: kind)
            }
        }
    }

    /// Adds another interval's counts (exact).
    package mutating func merge(_ other: TimelineStep) {
        attempts += other.attempts
        succeeded += other.succeeded
        failed += other.failed
        retries += other.retries
        errors.merge(other.errors, uniquingKeysWith: +)
        failedStatuses.merge(other.failedStatuses, uniquingKeysWith: +)
        latency.merge(other.latency)
    }
}
