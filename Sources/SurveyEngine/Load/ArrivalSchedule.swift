import SurveyJourney

/// When respondents arrive in the open model: a rate that is constant or ramps linearly between
/// stages. The n-th arrival (from 0) comes when the integral of the rate reaches n, so a
/// constant 10/s gives arrivals at 0, 100 ms, 200 ms, …
struct ArrivalSchedule: Sendable, Hashable {
    /// One stretch of time over which the rate moves linearly from `from` to `to` (per second).
    struct Segment: Sendable, Hashable {
        var start: Double
        var length: Double
        var from: Double
        var to: Double
        /// Arrivals before the segment starts.
        var before: Double

        var arrivals: Double { (from + to) / 2 * length }
    }

    let segments: [Segment]
    /// How long arrivals go on, in seconds.
    let length: Double

    /// `rate` (or 0) to start with, then each ramp stage; `duration` caps the whole (or holds the
    /// last rate until it ends, when longer than the stages).
    init(rate: Rate?, ramp: [RampStage], duration: Duration?) {
        var segments: [Segment] = []
        var time = 0.0
        var current = rate?.perSecond ?? 0
        var before = 0.0
        for stage in ramp {
            let length = stage.duration.seconds
            guard length > 0 else {
                current = stage.target.perSecond
                continue
            }
            let segment = Segment(start: time, length: length, from: current, to: stage.target.perSecond, before: before)
            segments.append(segment)
            before += segment.arrivals
            time += length
            current = stage.target.perSecond
        }
        if let duration {
            let total = duration.seconds
            if total > time {
                segments.append(Segment(start: time, length: total - time, from: current, to: current, before: before))
            } else {
                // Cut the stages at the duration.
                var cut: [Segment] = []
                for var segment in segments where segment.start < total {
                    if segment.start + segment.length > total {
                        let fraction = (total - segment.start) / segment.length
                        segment.to = segment.from + (segment.to - segment.from) * fraction
                        segment.length = total - segment.start
                    }
                    cut.append(segment)
                }
                segments = cut
            }
            length = total
        } else {
            length = time
        }
        self.segments = segments
    }

    /// Arrivals expected over the whole schedule.
    var totalArrivals: Int {
        guard let last = segments.last else { return 0 }
        let total = last.before + last.arrivals
        return Int(total.rounded(.up))
    }

    /// The time (seconds from the start) of the n-th arrival, or nil when it falls after the end.
    func time(ofArrival n: Int) -> Double? {
        let target = Double(n)
        for segment in segments {
            let after = segment.before + segment.arrivals
            guard target < after else { continue }
            let needed = target - segment.before
            let a = (segment.to - segment.from) / (2 * segment.length)
            let b = segment.from
            let t: Double
            if abs(a) < 1e-12 {
                guard b > 0 else { continue }
                t = needed / b
            } else {
                // a·t² + b·t − needed = 0, the root in [0, length].
                let discriminant = max(0, b * b + 4 * a * needed)
                t = (-b + discriminant.squareRoot()) / (2 * a)
            }
            return segment.start + min(max(t, 0), segment.length)
        }
        return nil
    }
}

/// One event loop's share of a shard's arrivals. The shard's k-th arrival (k = 0, 1, …) is the
/// schedule's arrival `shard.index − 1 + k · shard.count`, and lane `k mod lanes` starts it: the
/// lanes together start exactly the shard's arrivals, at exactly the schedule's times, each
/// once, and a lane needs no other lane to know what comes next.
struct ArrivalLane: Sendable {
    /// The schedule's arrival: its number (a respondent's number) and when it is due, in
    /// nanoseconds from the run's start.
    struct Arrival: Sendable, Hashable {
        var number: Int
        var due: UInt64
    }

    let schedule: ArrivalSchedule
    let shard: Shard
    let lanes: Int
    /// The position among the shard's arrivals of the lane's next one.
    private var position: Int

    /// Lane `lane` of `lanes` (from 0) of `shard`'s arrivals on `schedule`.
    init(_ schedule: ArrivalSchedule, shard: Shard, lane: Int, of lanes: Int) {
        precondition(lanes >= 1 && (0..<lanes).contains(lane), "lane \(lane) of \(lanes)")
        self.schedule = schedule
        self.shard = shard
        self.lanes = lanes
        position = lane
    }

    /// The lane's next arrival, or nil once the schedule has ended.
    var next: Arrival? {
        let number = shard.index - 1 + position * shard.count
        guard let time = schedule.time(ofArrival: number) else { return nil }
        return Arrival(number: number, due: UInt64((time * 1e9).rounded(.down)))
    }

    /// Moves past the next arrival.
    mutating func advance() {
        position += lanes
    }
}

extension LoadModel {
    /// The open model's arrival times over `duration`; nil for the closed model.
    func schedule(duration: Duration?) -> ArrivalSchedule? {
        guard case .open(let rate, let ramp) = self else { return nil }
        return ArrivalSchedule(rate: rate, ramp: ramp, duration: duration)
    }
}
