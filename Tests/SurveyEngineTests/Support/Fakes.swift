import Synchronization

@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// A transport that answers from a script and remembers every request and the highest number
/// of requests in flight at once.
final class ScriptedTransport: Transport {
    struct Sent: Sendable {
        var method: String
        var path: String
        var body: String
        /// The request line and headers, as sent.
        var head = ""
        /// The value of the request's one `Cookie` line (the template's, then the jar's); nil for none.
        var cookie: String? = nil
        /// Its own timeout (`HTTPRequest.timeout`), 0 for the client's.
        var timeout: UInt64 = 0
    }

    private let script: @Sendable (Sent, Int) -> TransportResult
    private let gate: (@Sendable () async -> Void)?
    private let state = Mutex<(sent: [Sent], seen: [String: Int], inFlight: Int, maxInFlight: Int)>(([], [:], 0, 0))

    /// `script` gets the request and how many requests with the same method, path and body came
    /// before it (0 for the first), so "fail twice then succeed" is easy to say.
    /// `gate`, when given, is awaited by every request before it is answered (a `Latch`'s
    /// `wait`, say): a test holds requests in flight by an event it controls, not by time.
    init(gate: (@Sendable () async -> Void)? = nil, _ script: @escaping @Sendable (Sent, Int) -> TransportResult) {
        self.script = script
        self.gate = gate
    }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let cookie = [request.template.cookie, request.cookies].compactMap { $0.map { String(decoding: $0, as: UTF8.self) } }
        let sent = Sent(
            method: request.template.method, path: request.template.path, body: String(decoding: request.body ?? [], as: UTF8.self),
            head: String(decoding: request.template.head, as: UTF8.self),
            cookie: cookie.isEmpty ? nil : cookie.joined(separator: "; "), timeout: request.timeout)
        let previous = state.withLock { state in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            let key = "\(sent.method) \(sent.path) \(sent.body)"
            let count = state.seen[key, default: 0]
            state.seen[key] = count + 1
            state.sent.append(sent)
            return count
        }
        guard let gate else {
            state.withLock { $0.inFlight -= 1 }
            continuation.resume(returning: script(sent, previous))
            return
        }
        // The wait at the gate is the transport's own: a task of its own does it.
        Task {
            await gate()
            state.withLock { $0.inFlight -= 1 }
            continuation.resume(returning: script(sent, previous))
        }
    }

    func shutdown() async {}

    var sent: [Sent] { state.withLock { $0.sent } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// Requests sent and not yet answered (waiting at the gate, when there is one).
    var inFlight: Int { state.withLock { $0.inFlight } }
}

/// Holds every caller of `wait()` until `open()` is called; after that, `wait()` returns at
/// once. As a transport's gate it keeps requests in flight for exactly as long as a test needs.
final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if !state.isOpen { state.waiting.append(continuation) }
                return state.isOpen
            }
            if isOpen { continuation.resume() }
        }
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Virtual time: `sleep` moves the clock forward at once and is remembered.
final class VirtualClock: Sendable {
    private let state = Mutex<(now: UInt64, sleeps: [UInt64])>((1_000_000_000, []))
    /// How much later than asked every sleep ends: a busy loop's timers.
    private let oversleep: UInt64
    /// Called at every sleep, after time has moved: something that happens while a task waits.
    private let onSleep: (@Sendable () -> Void)?

    init(oversleep: UInt64 = 0, onSleep: (@Sendable () -> Void)? = nil) {
        self.oversleep = oversleep
        self.onSleep = onSleep
    }

    var clock: EngineClock {
        EngineClock(
            now: { self.state.withLock { $0.now } },
            sleep: { nanoseconds in
                self.state.withLock {
                    $0.now += nanoseconds + self.oversleep
                    $0.sleeps.append(nanoseconds)
                }
                self.onSleep?()
                await Task.yield()
            })
    }

    /// Moves the clock forward by `nanoseconds` without a sleep: a transport's own time.
    func advance(by nanoseconds: UInt64) {
        state.withLock { $0.now += nanoseconds }
    }

    var sleeps: [UInt64] { state.withLock { $0.sleeps } }

    var now: UInt64 { state.withLock { $0.now } }
}

let questionsJSON = #"[{"id":1,"question":"a"},{"id":2,"question":"b"},{"id":3,"question":"c"}]"#

func ok(_ body: String = "") -> TransportResult {
    .response(TransportResponse(status: 200, body: Array(body.utf8)), serviceTime: .milliseconds(1))
}

/// A 200 with `body` that sets these cookies (`Set-Cookie` field values).
func ok(_ body: String = "", setting cookies: [String]) -> TransportResult {
    .response(
        TransportResponse(status: 200, body: Array(body.utf8), setCookies: cookies.map { Array($0.utf8) }), serviceTime: .milliseconds(1))
}

func status(_ code: Int, retryAfter: String? = nil) -> TransportResult {
    .response(TransportResponse(status: code, retryAfter: retryAfter), serviceTime: .milliseconds(1))
}

/// The survey: questions on GET, and `submit` deciding each POST.
func survey(
    questions: String = questionsJSON, submit: @escaping @Sendable (ScriptedTransport.Sent, Int) -> TransportResult = { _, _ in ok() }
) -> @Sendable (ScriptedTransport.Sent, Int) -> TransportResult {
    { sent, previous in sent.method == "GET" ? ok(questions) : submit(sent, previous) }
}

let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 9)

func retrying(_ attempts: Int, on names: [String], backoff: Backoff = Backoff(.constant, initial: .milliseconds(100))) -> RetryPolicy {
    RetryPolicy(attempts: attempts, backoff: backoff, jitter: .none, retryOn: try! RetryConditions(names: names))
}

func context(
    _ transport: ScriptedTransport, clock: VirtualClock = VirtualClock(), answers: AnswerBook = AnswerBook(fallback: ["x"]),
    questions: RetryPolicy = retrying(3, on: ["5xx", "connection"]), submit: RetryPolicy = retrying(3, on: ["400", "5xx"]),
    budget: RetryBudgetPolicy? = nil, order: QuestionOrder = .sequential, recorder: MetricsRecorder = MetricsRecorder(lanes: 1),
    think: ThinkTime = .zero, pace: Duration? = nil, cookies: Bool = true
) -> SurveyContext {
    let configuration = RunConfiguration(
        load: .closed(respondents: 1), think: think, order: order, answers: answers,
        retry: RetryPolicies([.questions: questions, .submit: submit], budget: budget), pace: pace, cookies: cookies)
    // The default API's requests always frame; RequestTemplateTests try the ones that do not.
    let requests = try! SurveyRequests(api: configuration.api, target: target)
    return SurveyContext(
        configuration: configuration, requests: requests, seed: 1, transport: transport, clock: clock.clock, recorder: recorder,
        interruption: OnceFlag(), runStart: 1_000_000_000)
}
