import SurveyEngine
import SurveyMetrics
import Synchronization

/// Says once per run, on stderr and even with `--quiet`, that survey-bot ran out of file
/// descriptors or local ports: from then on its own limits, not the server, decide what the
/// report shows, and the run will fail. Watched while the run goes on, so that the warning
/// comes when it happens, not only at the end.
final class LocalResourceWarning: Sendable {
    private let console: Console
    private let said = Atomic<Bool>(false)

    init(console: Console) {
        self.console = console
    }

    /// Looks at `recorder` and the builtin `server` every 100 ms until cancelled, and warns at
    /// the first attempt that could not be made or connection the server could not accept.
    func watch(_ recorder: MetricsRecorder, server: ReferenceServer?) async {
        while !Task.isCancelled {
            let serverFailures = server?.acceptsWithoutResources ?? 0
            if recorder.progress.localResource > 0 || serverFailures > 0 {
                warn(recorder.snapshot(), serverAcceptFailures: serverFailures)
                return
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Warns if `metrics` count attempts not made, or the builtin server failed to accept, and
    /// no warning was given yet.
    func warn(_ metrics: RunMetrics, serverAcceptFailures: Int) {
        guard metrics.localResource > 0 || serverAcceptFailures > 0, !said.exchange(true, ordering: .relaxed) else { return }
        console.printError(Self.message(metrics, serverAcceptFailures: serverAcceptFailures))
    }

    static func message(_ metrics: RunMetrics, serverAcceptFailures: Int) -> String {
        let sample =
            metrics.perStep.values.lazy.compactMap { $0.errorSamples[.localResource] }.first
            ?? (serverAcceptFailures > 0 ? "the builtin server's accept(): no descriptor left" : nil)
        let limit = OpenFilesLimit.current().map { "open files are limited to \($0) by ulimit -n" } ?? "the limit on open files is unknown"
        return """
            warning: survey-bot ran out of file descriptors or local ports\(sample.map { " (\($0))" } ?? ""); \(limit). \
            Attempts it cannot make are counted as local_resource, apart from the attempts sent, and fail the run: \
            it no longer measures the server. Raise the limit (ulimit -n, or LimitNOFILE for a service), \
            lower the concurrency (--concurrency), or run fewer event loops (--threads); \
            for local ports, widen net.ipv4.ip_local_port_range.
            """
    }
}
