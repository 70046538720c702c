import Synchronization

/// Collects attempt records and respondent results from every respondent at once: one shard
/// per event loop (or per worker) so that recording does not contend, added up at the end.
/// Live counters for a progress line are kept in atomics.
public final class MetricsRecorder: Sendable {
    private final class Shard: Sendable {
        let metrics = Mutex(RunMetrics())
    }

    private let shards: [Shard]
    private let attemptCount = Atomic<Int>(0)
    private let failedAttemptCount = Atomic<Int>(0)
    private let finishedCount = Atomic<Int>(0)
    private let startedCount = Atomic<Int>(0)

    public init(shards: Int) {
        self.shards = (0..<max(1, shards)).map { _ in Shard() }
    }

    public func record(_ record: AttemptRecord, shard: Int) {
        attemptCount.add(1, ordering: .relaxed)
        if !record.succeeded { failedAttemptCount.add(1, ordering: .relaxed) }
        shards[shard % shards.count].metrics.withLock { $0.add(record) }
    }

    public func endCall(_ endpoint: Endpoint, succeeded: Bool, attempts: Int, retriesDenied: Int, shard: Int) {
        shards[shard % shards.count].metrics.withLock {
            $0[endpoint].endCall(succeeded: succeeded, attempts: attempts)
            $0[endpoint].retriesDenied += retriesDenied
        }
    }

    public func respondentStarted(shard: Int) {
        startedCount.add(1, ordering: .relaxed)
        shards[shard % shards.count].metrics.withLock { $0.respondentsStarted += 1 }
    }

    public func respondentFinished(_ result: RespondentResult, shard: Int) {
        finishedCount.add(1, ordering: .relaxed)
        shards[shard % shards.count].metrics.withLock { $0.add(result) }
    }

    public func answerMissing(shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.answersMissing += 1 }
    }

    public func dropped(shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.dropped += 1 }
    }

    /// Counters for a progress line, read without locks.
    public struct Progress: Sendable, Hashable {
        public var respondentsStarted: Int
        public var respondentsFinished: Int
        public var attempts: Int
        public var failedAttempts: Int
    }

    public var progress: Progress {
        Progress(
            respondentsStarted: startedCount.load(ordering: .relaxed), respondentsFinished: finishedCount.load(ordering: .relaxed),
            attempts: attemptCount.load(ordering: .relaxed), failedAttempts: failedAttemptCount.load(ordering: .relaxed))
    }

    /// Everything recorded so far, added up.
    public func snapshot() -> RunMetrics {
        var total = RunMetrics()
        for shard in shards {
            let part = shard.metrics.withLock { $0 }
            total.merge(part)
        }
        return total
    }
}
