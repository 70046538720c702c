import SurveyEngine
import SurveyJourney
import SurveyMetrics

/// The live progress line on a terminal, redrawn every second: respondents done, attempts per
/// second, failed attempts, p95 so far. Never shown on a pipe or in a CI log.
final class ProgressLine: Sendable {
    private let task: Task<Void, Never>

    init(coordinator: RunCoordinator, load: LoadModel, shard: Shard, console: Console) {
        let total: String
        switch load {
        case .closed(let respondents): total = "/\(shard.count(of: respondents))"
        case .open: total = ""
        }
        task = Task { await Self.show(coordinator, total: total, console: console) }
    }

    /// Stops redrawing and clears the line.
    func stop() async {
        task.cancel()
        await task.value
    }

    private static func show(_ coordinator: RunCoordinator, total: String, console: Console) async {
        let recorder = coordinator.recorder
        var lastAttempts = 0
        var last = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { break }
            let progress = recorder.progress
            let now = ContinuousClock.now
            let rate = Double(progress.attempts - lastAttempts) / max((now - last).seconds, 0.001)
            lastAttempts = progress.attempts
            last = now
            let p95 = Self.p95(recorder.snapshot())
            let stopping = coordinator.isInterrupted ? " · stopping" : ""
            console.err(
                "\r\u{1B}[K  respondents \(progress.respondentsFinished)\(total) done · \(Int(rate)) req/s · "
                    + "errors \(progress.failedAttempts) · p95 \(p95)\(stopping)")
        }
        console.err("\r\u{1B}[K")
    }

    /// The p95 so far of every step's succeeded attempts, like the report's latency: `–` until
    /// one has succeeded, never the `0 ms` of no samples.
    static func p95(_ metrics: RunMetrics) -> String {
        var latency = Histogram()
        for step in metrics.perStep.values { latency.merge(step.correctedLatency) }
        return latency.count == 0 ? "–" : Readable.ms(milliseconds(Double(latency.value(atPercentile: 95))))
    }
}
