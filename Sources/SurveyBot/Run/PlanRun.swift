import Foundation
import SurveyEngine
import SurveyJourney
import SurveyMetrics
import SurveyWire

/// One run of a plan, from the first thing it starts to the last thing it stops.
///
/// A run holds, in the order it starts them: the signal watcher, the report output, the event
/// loops, the builtin server (for `target: builtin`), the transport, the coordinator's signal
/// handling and the progress line. `run()` starts them in that order and stops whatever was
/// started in reverse, on every path — a finished run, a failed threshold, an interrupt, or an
/// error before the first request — because stopping is not a step of the run but what the
/// session does after it (swift-service-lifecycle's `ServiceGroup` tears services down the same
/// way). The report is written when the output stops: after the loops, before the signals, so
/// that a Ctrl-C while it is written changes nothing. The `--metrics-listen` listener, on a loop
/// of its own, stops after that — it serves the final state while the report is written, and
/// for `--metrics-linger` once the summary is printed — and the signals last.
final class PlanRun {
    /// What the command line adds to a plan.
    struct Options {
        var shard = Shard.whole
        /// Nil: the plan's `report.formats`.
        var formats: [ReportFormat]?
        /// Nil: the plan's `report.dir`.
        var directory: String?
        var quiet = false
        /// `--run-id`, or a new random one.
        var runID = RunReport.newRunID()
        /// `--raw`: the file every attempt is written to, one JSON line each.
        var raw: String?
        /// `--metrics-listen`: where live metrics are served.
        var metricsListen: MetricsListener.Address?
        /// How often live metrics and the live page are rendered again, at most.
        var metricsInterval = Duration.seconds(1)
        /// `--metrics-linger`: how long the listener goes on serving the final state once the
        /// report is written, unless a signal ends the wait.
        var metricsLinger = Duration.zero
        /// For `replay`: whether the report's files are written (it leaves none), what wraps the
        /// run's transport before the coordinator gets it (`RecordingTransport`; the client is
        /// still the one shut down), and where every attempt is also offered without `--raw`.
        var writesReport = true
        var wrapTransport: (@Sendable (any Transport) -> any Transport)?
        var attemptLog: AttemptLog?
    }

    /// A failure before anything was sent: bad input found late, exit 2.
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    let plan: Plan
    let path: String
    let options: Options
    let console: Console
    /// What was started, with how to stop it; stopped last first.
    private var stack: [(name: String, stop: () async -> Void)] = []
    /// What was stopped, in order: the teardown as it happened, for tests.
    private(set) var stopped: [String] = []
    /// The reference server of a `target: builtin` run, once started.
    private var builtinServer: ReferenceServer?
    /// The signal that stopped the run early, if one did.
    private var interruptingSignal: Int32?
    /// The run's signal handling, still taking signals in while the listener lingers.
    private var lingeringSignals: Task<Int32?, Never>?
    /// The `--raw` file while it is open.
    private var rawFile: RawFile?
    /// The `--metrics-listen` server while it runs, and the event loop of its own it runs on:
    /// it serves while the run's loops stop and the report is written, and never takes a
    /// respondent's loop to answer a page.
    private var metricsListener: (listener: MetricsListener, group: EventLoopGroup)?
    /// Called once the run's loops, server and metrics are up, just before the first respondent
    /// starts, with the port live metrics are served on, if they are, and the run's coordinator:
    /// tests scrape from here, and end the run (`endEarly()`) once they have seen what they need.
    var onStart: (@Sendable (_ metricsPort: Int?, _ coordinator: RunCoordinator) -> Void)?
    /// Called once the report is written and the listener serves the final state, before the
    /// linger, with the listener's port: tests read the final state from here, and the listener
    /// stays until this returns.
    var onFinish: (@Sendable (_ metricsPort: Int?) async -> Void)?

    init(plan: Plan, path: String, options: Options, console: Console) {
        self.plan = plan
        self.path = path
        self.options = options
        self.console = console
    }

    /// Runs the plan and says how it went: 0 passed, 1 failed a threshold (or lost its report),
    /// 2 bad input and nothing sent, 128 + the signal's number when a signal interrupted it
    /// (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
    func run() async -> ExitCode {
        let output = ReportOutput(
            directory: options.directory ?? plan.report.directory, formats: options.formats ?? plan.report.formats,
            shard: options.shard)
        let outcome: Result<RunReport, SetupError>
        do throws(SetupError) {
            outcome = .success(try await startAndRun(output: output))
        } catch {
            outcome = .failure(error)
        }
        // Everything but the signal watcher: with a linger, signals end it.
        await stop(until: "signals")
        let status: ExitCode
        switch outcome {
        case .failure(let error):
            console.printError("Error: \(error.description); nothing was sent")
            status = .validationFailure
        case .success(let report):
            status = finish(report, output: output)
        }
        if let (listener, group) = metricsListener {
            await onFinish?(listener.port)
            if case .success = outcome, let handling = lingeringSignals { await linger(listener, signalled: handling) }
            await listener.shutdown()
            group.shutdown()
            metricsListener = nil
            stopped.append("metrics listener")
        }
        if let handling = lingeringSignals {
            handling.cancel()
            _ = await handling.value
            lingeringSignals = nil
        }
        await stop(until: nil)
        return status
    }

    /// Stops what was started, last first, down to the resource named `name` (left running),
    /// or all of it.
    private func stop(until name: String?) async {
        while let resource = stack.last, resource.name != name {
            stack.removeLast()
            await resource.stop()
            stopped.append(resource.name)
        }
    }

    /// Serves the final state for `--metrics-linger`, or until SIGINT, SIGTERM or SIGHUP ends
    /// `signalled`, the run's signal handling: the report is written, so a signal only ends
    /// the wait, and the run's exit status stands.
    private func linger(_ listener: MetricsListener, signalled: Task<Int32?, Never>) async {
        if !options.quiet {
            console.printError(
                "live: the final state stays at http://\(listener.address)/ for \(options.metricsLinger.compactDescription) "
                    + "(Ctrl-C to exit now)")
        }
        let linger = options.metricsLinger
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: linger) }
            group.addTask { _ = await signalled.value }
            await group.next()
            // Awaiting a task's value ignores cancellation: the signal handling itself ends.
            signalled.cancel()
            group.cancelAll()
        }
    }

    /// Remembers how to stop what was just started.
    private func onStop(_ name: String, _ stop: @escaping () async -> Void) {
        stack.append((name, stop))
    }

    private func startAndRun(output: ReportOutput) async throws(SetupError) -> RunReport {
        // A second signal exits at once from the watcher's own queue, removing any report file
        // half written: it must work while this task is busy writing.
        let console = self.console
        let signals = SignalWatcher(exitAfter: 1) { signal in
            console.printError("\(SignalWatcher.name(signal)) again: exiting without a report")
        }
        onStop("signals") { signals.restoreDefaults() }

        if options.writesReport {
            do throws(ReportWriter.WriteError) {
                try output.prepare(name: plan.name)
            } catch {
                throw SetupError(description: plan.redacting(error.description))
            }
            onStop("output") { output.stop() }
        }

        if let path = options.raw {
            // Opening it empties it: never the plan, its data or this run's own report.
            if let clash = rawPathClash(path, output: output) {
                throw SetupError(description: "--raw \(TerminalText.escaped(path)): \(clash); give the attempts a file of their own")
            }
            switch RawFile.open(path) {
            case .success(let file): rawFile = file
            case .failure(let error): throw SetupError(description: "--raw: \(error.description)")
            }
            onStop("raw file") { self.closeRawFile() }
        }

        let group: EventLoopGroup
        do throws(EventLoopGroup.StartError) {
            group = try EventLoopGroup.start(threads: plan.run.threads ?? EventLoopGroup.coreCount)
        } catch {
            let limit = OpenFilesLimit.current().map { "; open files are limited to \($0) by ulimit -n" } ?? ""
            throw SetupError(description: error.description + limit)
        }
        onStop("event loops") { group.shutdown() }

        var configuration = plan.run
        configuration.recordAnswers = plan.report.includeAnswers
        configuration.secrets = plan.secrets
        // Without a seed in the plan, every shard of a run draws the one of its run id.
        configuration.seed = configuration.seed ?? RunReport.seed(derivedFrom: options.runID)
        configuration.shard = options.shard
        let target = try await startTarget(seed: configuration.seed ?? 0, group: group, client: &configuration.client)

        let transport: HTTPClient
        do throws(TLSSetupError) {
            transport = try HTTPClient(target: target, group: group, configuration: configuration.client)
        } catch {
            throw SetupError(description: plan.redacting(error.description))
        }
        onStop("transport") { await transport.shutdown() }

        let rawWriter = rawFile.map { file in
            RawAttemptWriter(log: AttemptLog(lanes: group.loops.count), sink: { file.write($0) }, path: file.path)
        }
        if let rawWriter { onStop("raw writer") { _ = await rawWriter.finish() } }
        let coordinator: RunCoordinator
        do throws(HTTPSyntaxError) {
            coordinator = try RunCoordinator(
                configuration: configuration, target: target, transport: options.wrapTransport?(transport) ?? transport,
                executors: group.loops, attemptLog: rawWriter?.log ?? options.attemptLog)
        } catch {
            throw SetupError(description: plan.redacting("cannot send the survey's requests: \(error.description)"))
        }
        let runEnded = RunEnded()
        let handling = Task { await PlanRun.handle(signals, coordinator: coordinator, console: console, ended: runEnded) }
        onStop("signal handling") {
            runEnded.mark()
            // A run that lingers goes on taking signals in: the first ends the linger. One that a
            // signal interrupted has taken its signal in already.
            if self.options.metricsListen != nil && self.options.metricsLinger > .zero && !coordinator.isInterrupted {
                self.lingeringSignals = handling
                return
            }
            handling.cancel()
            self.interruptingSignal = await handling.value
        }

        if !options.quiet && console.errorIsTerminal {
            let progress = ProgressLine(coordinator: coordinator, load: configuration.load, shard: options.shard, console: console)
            onStop("progress line") { await progress.stop() }
        }
        if target.scheme == .https && !configuration.client.tls.verify {
            // Said even with --quiet: a run that trusts anyone must not look like one that does not.
            console.printError(
                "warning: TLS certificates are not verified (--insecure or tls.verify: false): this run cannot tell \(target.host) from an impostor"
            )
        }
        let startedAt = Date()
        var live: LiveFacts?
        if let address = options.metricsListen {
            let facts = LiveFacts(
                plan: plan, startedAt: startedAt, seed: configuration.seed ?? 0, shard: options.shard, runID: options.runID,
                coordinator: coordinator, raw: rawWriter)
            let listenerGroup: EventLoopGroup
            do throws(EventLoopGroup.StartError) {
                listenerGroup = try EventLoopGroup.start(threads: 1)
            } catch {
                throw SetupError(description: "--metrics-listen \(address): \(error.description)")
            }
            do throws(HTTPServer.StartError) {
                let renderers = MetricsListener.Renderers(name: plan.name) { facts.view() }
                let listener = try MetricsListener(
                    address: address, group: listenerGroup, interval: options.metricsInterval, renderers: renderers)
                metricsListener = (listener, listenerGroup)
                live = facts
                if let warning = WildcardBind.warning(listener.address, option: "--metrics-listen") {
                    console.printError(warning)
                }
            } catch {
                listenerGroup.shutdown()
                throw SetupError(description: "--metrics-listen \(address): \(error.description)")
            }
        }
        // Said once nothing can stop the run from starting: a busy --metrics-listen port is an
        // error without a banner before it.
        if !options.quiet {
            let place = plan.target == .builtin ? "builtin server at \(target)" : plan.shownTarget
            console.printError(
                TerminalText.escaped(
                    "survey-bot \(SurveyEngine.version): running \(plan.name) against \(place) — \(plan.summary(naming: false))"))
            if let (listener, _) = metricsListener { console.printError("live: http://\(listener.address)/ (metrics at /metrics)") }
        }
        rawWriter?.begin(at: startedAt)
        onStart?(metricsListener?.listener.port, coordinator)
        let warning = LocalResourceWarning(console: console)
        let builtinServer = self.builtinServer
        let watching = Task { await warning.watch(coordinator.recorder, server: builtinServer) }
        let (plan, seed, shard, runID) = (self.plan, configuration.seed ?? 0, options.shard, options.runID)
        let aborting = Task {
            await PlanRun.watchAbort(plan: plan, seed: seed, shard: shard, runID: runID, coordinator: coordinator, console: console)
        }
        let result = await coordinator.run()
        watching.cancel()
        aborting.cancel()
        let abortedBy = result.stoppedBy == .endedEarly ? await aborting.value : nil
        let acceptFailures = builtinServer?.acceptsWithoutResources ?? 0
        warning.warn(result.metrics, serverAcceptFailures: acceptFailures)
        let facts = RunReport.RunFacts(
            plan: plan, startedAt: startedAt, endedAt: Date(),
            elapsed: result.elapsed, seed: configuration.seed ?? 0, shard: options.shard,
            openFiles: OpenFilesLimit.current(), builtinServerAcceptFailures: acceptFailures, stoppedBy: result.stoppedBy,
            runID: options.runID, abortedBy: abortedBy)
        var report = RunReport.make(metrics: result.metrics, facts: facts)
        if let rawWriter { report.raw = await finishRaw(rawWriter) }
        // From now on the listener serves the report the files get, until it is shut down.
        if let live, let (listener, _) = metricsListener { listener.finish(live.final(report)) }
        output.finish(report, started: startedAt)
        return report
    }

    /// Writes the attempts left, closes the `--raw` file, and says what was written; warns when
    /// lines were dropped or the file could not be written.
    private func finishRaw(_ writer: RawAttemptWriter) async -> RunReport.Raw {
        let outcome = await writer.finish()
        let path = rawFile?.path ?? ""
        var failure = outcome.failure
        if let error = closeRawFile(), failure == nil { failure = "cannot write \(path): \(FileAccess.reason(error))" }
        if let failure {
            console.printError("warning: --raw: \(failure); \(outcome.dropped) attempt line\(outcome.dropped == 1 ? "" : "s") not written")
        } else if outcome.dropped > 0 {
            console.printError(
                "warning: --raw: the disk could not keep up: \(outcome.dropped) of \(outcome.lines + outcome.dropped) attempt lines "
                    + "dropped (raw.dropped in the report)")
        }
        return RunReport.Raw(lines: outcome.lines, dropped: outcome.dropped)
    }

    /// Flushes and closes the `--raw` file if it is open; the error number if the flush failed.
    @discardableResult
    private func closeRawFile() -> Int32? {
        guard let file = rawFile else { return nil }
        rawFile = nil
        return file.close()
    }

    /// The URL to send to: the plan's, or the builtin server's once it is started — whose
    /// self-signed certificate, with `builtin.tls`, the client then trusts, and only it.
    private func startTarget(seed: UInt64, group: EventLoopGroup, client: inout HTTPClientConfiguration) async throws(SetupError)
        -> HTTPTarget
    {
        guard case .builtin = plan.target else {
            if case .url(let url) = plan.target { return url }
            throw SetupError(description: "no target")
        }
        var builtin = plan.builtin
        builtin.seed = seed
        // A plan that asks for HTTP/2 gets a server that speaks it.
        if plan.run.client.version == .http2 { builtin.http2 = true }
        let server: ReferenceServer
        do throws(ReferenceServer.StartError) {
            server = try ReferenceServer(configuration: builtin, host: "127.0.0.1", port: 0, group: group)
        } catch {
            throw SetupError(description: plan.redacting(error.description))
        }
        onStop("builtin server") { await server.shutdown() }
        builtinServer = server
        let missing = plan.unanswerable(among: server.needingAnswers)
        guard missing.isEmpty else {
            let list = missing.prefix(5).map(String.init).joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
            throw SetupError(
                description: "\(path): the plan has no answer for question\(missing.count == 1 ? "" : "s") \(list) and no \"*\" fallback")
        }
        if let certificate = server.certificatePEM { client.tls.trustedCertificates = [certificate] }
        return server.target
    }

    /// Judges the plan's `abort` thresholds every second on the figures so far, and ends the run
    /// when one fails after its `after`, saying so on stderr (`--quiet` or not). Returns that
    /// threshold; nil when none failed or the plan has none.
    private static func watchAbort(
        plan: Plan, seed: UInt64, shard: Shard, runID: String, coordinator: RunCoordinator, console: Console
    ) async -> Threshold? {
        let start = ContinuousClock.now
        let check = AbortCheck(plan.thresholds)
        let failing = await check.watch(
            every: .seconds(1), elapsed: { ContinuousClock.now - start },
            figures: {
                let facts = RunReport.RunFacts(
                    plan: plan, startedAt: Date(), endedAt: Date(), elapsed: ContinuousClock.now - start, seed: seed, shard: shard,
                    runID: runID)
                return RunFigures(RunReport.make(metrics: coordinator.recorder.snapshot(), facts: facts))
            },
            sleep: { interval in try? await Task.sleep(for: interval) },
            end: { failing in
                let elapsed = (ContinuousClock.now - start).seconds
                // On a terminal, the progress line (no line feed) is cleared first.
                console.printError(
                    (console.errorIsTerminal ? "\r\u{1B}[K" : "")
                        + plan.redacting(
                            "\(failing.threshold) failed \(Readable.number((elapsed * 10).rounded() / 10)) s into the run "
                                + "(actual \(Readable.actual(failing))): stopping (abort) — attempts in flight get their grace, then the "
                                + "report is written"))
                coordinator.endEarly()
            })
        return failing?.threshold
    }

    /// The first SIGINT, SIGTERM or SIGHUP stops starting respondents (the second is the
    /// watcher's: it exits at once). Returns the signal, once cancelled, or nil if none came.
    private static func handle(_ signals: SignalWatcher, coordinator: RunCoordinator, console: Console, ended: RunEnded) async
        -> Int32?
    {
        for await signal in signals.signals {
            if ended.isMarked {
                console.printError("\n\(SignalWatcher.name(signal)): exiting (the report is written)")
                return signal
            }
            console.printError(
                "\n\(SignalWatcher.name(signal)): stopping — letting attempts in flight finish within the grace, then writing the report (again to quit now)"
            )
            coordinator.interrupt()
            return signal
        }
        return nil
    }

    /// Prints the summary and the files written, and turns the verdict into an exit status.
    private func finish(_ report: RunReport, output: ReportOutput) -> ExitCode {
        if let failure = output.failure {
            // The numbers are not lost with the files: the summary goes to stdout, --quiet or not.
            console.out(TextReport.render(report))
            console.printError("Error: \(plan.redacting(failure.description)); the summary above is all that is left of this run")
            return .failure
        }
        if !options.quiet {
            console.out(TextReport.render(report))
            for file in output.written { console.print("report: \(plan.redacting(file))") }
            if let path = options.raw, let raw = report.raw {
                console.print("attempts: \(plan.redacting(TerminalText.escaped(path))) (\(raw.lines) line\(raw.lines == 1 ? "" : "s"))")
            }
        }
        if report.interrupted { return .signalled(interruptingSignal ?? SIGINT) }
        return report.passed ? .success : .failure
    }
}
