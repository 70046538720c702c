import SurveyJourney
import SurveyWire
import Synchronization

/// One attempt as the raw log keeps it: who sent it, what it was, how it ended, how long it
/// took and how many body bytes came back. No header, no path: nothing a plan could have put a
/// secret in; of a body, only a failure's excerpt in `reason`, its secrets masked.
public struct LoggedAttempt: Sendable, Hashable {
    /// When the attempt started, in nanoseconds since the run began.
    public var start: UInt64
    /// The respondent's number in the run (across shards), from 0.
    public var respondent: Int
    /// The step whose call it belongs to.
    public var step: Step
    /// 1 for the first try of a call, 2 for its first retry, …
    public var attempt: Int
    /// The status received, whenever a response came: a 2xx whose body the step could not
    /// read (`error` says so) included; nil when none came.
    public var status: Int?
    /// The kind of failure of an attempt that got no usable response: none came (`timeout`,
    /// `connection_refused`, …), or its body did not do (`malformed_response`). Nil for an
    /// attempt counted by its status alone.
    public var error: ErrorKind?
    /// Why it failed, beyond its kind, when that is known: the server's reason for a 4xx or
    /// 5xx (an excerpt of its body, secrets masked), `the questions list is empty`,
    /// `capture 'token' not found`, a certificate's fault.
    public var reason: String?
    /// The latency corrected for coordinated omission, in nanoseconds (the report's `latency_ms`).
    public var latency: UInt64
    /// From the attempt's start to its end, in nanoseconds (the report's `service_latency_ms`).
    public var serviceTime: UInt64
    /// Bytes of the response body received; 0 without a response.
    public var bytes: Int
    /// For a step per question, the id of the question the attempt answers; nil otherwise.
    public var question: String?

    /// An attempt as logged.
    public init(
        start: UInt64, respondent: Int, step: Step, attempt: Int, status: Int?, error: ErrorKind?, reason: String? = nil,
        latency: UInt64, serviceTime: UInt64, bytes: Int, question: String? = nil
    ) {
        self.start = start
        self.respondent = respondent
        self.step = step
        self.attempt = attempt
        self.status = status
        self.error = error
        self.reason = reason
        self.latency = latency
        self.serviceTime = serviceTime
        self.bytes = bytes
        self.question = question
    }
}

/// Every attempt of a run, handed one by one to whoever writes them down (`survey-bot run
/// --raw`), through a bounded buffer per lane that never makes a respondent wait.
///
/// A respondent appends to its lane's buffer under that lane's lock, which only the reader
/// shares, and only for as long as it takes to swap two arrays: the buffer's capacity is
/// reserved once, so appending never allocates. When a lane's buffer is full — its reader
/// cannot keep up — the attempt is not kept but counted in `dropped`: the load never slows
/// down for its log.
public final class AttemptLog: Sendable {
    private struct Buffer {
        var records: [LoggedAttempt]
        var dropped = 0
    }

    private final class Lane: Sendable {
        let buffer: Mutex<Buffer>

        init(capacity: Int) {
            var records: [LoggedAttempt] = []
            records.reserveCapacity(capacity)
            buffer = Mutex(Buffer(records: records))
        }
    }

    private let lanes: [Lane]
    /// How many attempts a lane holds before it drops them.
    public let capacity: Int

    /// A log of `lanes` lanes (at least one) that hold up to `capacity` attempts each (at least
    /// one) until `drain` takes them. Lane numbers are taken modulo the count, as
    /// `MetricsRecorder`'s are: give it as many lanes as the run has event loops.
    public init(lanes: Int, capacity: Int = 16_384) {
        let capacity = max(1, capacity)
        self.capacity = capacity
        self.lanes = (0..<max(1, lanes)).map { _ in Lane(capacity: capacity) }
    }

    /// How many lanes the log has.
    public var laneCount: Int { lanes.count }

    /// Keeps `attempt` in its lane's buffer, or counts it as dropped when the buffer is full.
    /// Never waits but for the lane's lock.
    public func offer(_ attempt: LoggedAttempt, lane number: Int) {
        lanes[number % lanes.count].buffer.withLock { buffer in
            if buffer.records.count < capacity {
                buffer.records.append(attempt)
            } else {
                buffer.dropped += 1
            }
        }
    }

    /// Takes every attempt the lane holds, oldest first, into `records`, whose old contents are
    /// thrown away and whose capacity becomes the lane's buffer: a reader that passes the same
    /// array every time, with `capacity` reserved, keeps the respondents' appends free of
    /// allocation.
    public func drain(lane number: Int, into records: inout [LoggedAttempt]) {
        records.removeAll(keepingCapacity: true)
        if records.capacity < capacity { records.reserveCapacity(capacity) }
        lanes[number % lanes.count].buffer.withLock { swap(&$0.records, &records) }
    }

    /// Attempts not kept because their lane's buffer was full, in every lane so far.
    public var dropped: Int {
        lanes.reduce(0) { total, lane in total + lane.buffer.withLock { $0.dropped } }
    }
}

extension AttemptLog {
    /// Offers the attempt `record` of respondent `respondent`, which came to `result`; one never
    /// sent (`local_resource`) is not an attempt, and is not logged.
    package func offer(_ record: AttemptRecord, result: TransportResult, respondent: Int, question: String? = nil, lane: Int) {
        if StepMetrics.isLocal(record) { return }
        var status: Int?
        var error: ErrorKind?
        var bytes = 0
        if case .success(let response) = result.received {
            status = response.status
            bytes = response.bodyBytes
        }
        if case .error(let kind) = record.outcome { error = kind }
        offer(
            LoggedAttempt(
                start: record.start, respondent: respondent, step: record.step, attempt: record.attempt, status: status,
                error: error, reason: record.succeeded ? nil : record.detail, latency: record.correctedLatency.clampedNanoseconds,
                serviceTime: record.serviceTime.clampedNanoseconds, bytes: bytes, question: question),
            lane: lane)
    }
}
