import Synchronization

/// Collects attempt records and respondent results from every respondent at once: one shard
/// per event loop (or per worker) so that recording does not contend, added up at the end.
/// Nothing is shared between shards on the hot path, not even a counter.
public final class MetricsRecorder: Sendable {
    private final class Shard: Sendable {
        let metrics = Mutex(RunMetrics())
    }

    private let shards: [Shard]

    public init(shards: Int) {
        self.shards = (0..<max(1, shards)).map { _ in Shard() }
    }

    public func record(_ record: AttemptRecord, shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.add(record) }
    }

    public func endCall(_ endpoint: Endpoint, succeeded: Bool, attempts: Int, retriesDenied: Int, shard: Int) {
        shards[shard % shards.count].metrics.withLock {
            $0[endpoint].endCall(succeeded: succeeded, attempts: attempts)
            $0[endpoint].retriesDenied += retriesDenied
        }
    }

    public func respondentStarted(shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.respondentsStarted += 1 }
    }

    public func respondentFinished(_ result: RespondentResult, shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.add(result) }
    }

    public func answerMissing(shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.answersMissing += 1 }
    }

    public func dropped(shard: Int) {
        shards[shard % shards.count].metrics.withLock { $0.dropped += 1 }
    }

    /// Counters for a progress line.
    public struct Progress: Sendable, Hashable {
        public var respondentsStarted: Int
        public var respondentsFinished: Int
        public var attempts: Int
        public var failedAttempts: Int
    }

    public var progress: Progress {
        var progress = Progress(respondentsStarted: 0, respondentsFinished: 0, attempts: 0, failedAttempts: 0)
        for shard in shards {
            shard.metrics.withLock { metrics in
                progress.respondentsStarted += metrics.respondentsStarted
                progress.respondentsFinished +=
                    metrics.respondentsCompleted + metrics.respondentsFinishedWithUnanswered + metrics.respondentsAbandoned
                progress.attempts += metrics.attempts
                progress.failedAttempts += metrics.questions.failedAttempts + metrics.submit.failedAttempts
            }
        }
        return progress
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
