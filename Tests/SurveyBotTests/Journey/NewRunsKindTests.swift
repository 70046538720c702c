import Synchronization
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyMetrics
@testable import SurveyWire

/// A kind of `runs` no journey of survey-bot's has, defined here and nowhere else: its runner
/// and its value (with its doc), registered for as long as a test says. A plan names it and the
/// docs' table lists it from the registry; a respondent walks it end to end.
extension JourneyStep.Runs {
    /// Twice per respondent, one call after the other.
    static let twice = JourneyStep.Runs(
        "twice", runner: TwiceRunner.self, doc: "twice per respondent, one call after the other, each after its think time")
}

/// A step run twice: each call after the step's own think time; a failure abandons the
/// respondent as a step run once does, with no second call. `Place.round` counts the calls.
private enum TwiceRunner: StepRunner {
    static func next(
        _ step: CompiledStep, _ respondent: inout Respondent, _ place: inout Respondent.Place, _ tally: inout RespondentResult,
        _ context: SurveyContext
    ) -> StepTurn {
        if tally.isAbandoned || place.round == 2 {
            place.moveOn()
            return .skip
        }
        if Respondent.stopping(&tally, context) { return .stop }
        place.round += 1
        return respondent.callWithoutAnswers(step, &place, context)
    }

    static func called(
        _ step: CompiledStep, _ ended: Respondent.CallResult, _ respondent: inout Respondent, _ place: inout Respondent.Place,
        _ tally: inout RespondentResult, _ context: SurveyContext
    ) -> Bool {
        OnceRunner.called(step, ended, &respondent, &place, &tally, context)
    }
}

@Suite struct NewRunsKindTests {
    /// Open the survey, ping twice (a second's think before each), answer each question.
    static let plan = lines(
        "target: http://127.0.0.1:9",  // 1
        "journey:",
        "  open:",
        "    request: GET /survey",
        "    questions: $",  // 5
        "  ping:",
        "    request: POST /ping",
        "    runs: twice",
        "    think: 1s",
        "  answer:",  // 10
        "    request: PUT /answers/${question.id}",
        "    runs: per_question")

    static let target = HTTPTarget(scheme: .http, host: "127.0.0.1", port: 9)

    /// The built-in kinds and the test's.
    static let kinds = JourneyStep.Runs.registered + [.twice]

    @Test func aPlanNamesTheKindOnlyWhileItIsRegistered() throws {
        let errors = expectErrors(Self.plan)
        #expect(errors.count == 1)
        #expect(errors.first?.location.line == 8)
        #expect(errors.first?.message.contains("once, per_question, per_survey, per_page") == true, "\(errors)")
        try JourneyStep.Runs.$registered.withValue(Self.kinds) {
            let plan = try #require(expectPlan(Self.plan))
            let steps = try #require(plan.run.declaredJourney?.steps)
            #expect(steps.map(\.runs) == [.once, .twice, .perQuestion])
            #expect(RunReport.PlanRecord(plan).api["ping"] == "POST /ping, twice")
            // The docs' table of step keys lists it, from the registry.
            let runs = try #require(JourneyKeys.keys(Step("ping"), at: 1).first { $0.name == "runs" })
            #expect(runs.kind == "`once`, `per_question`, `per_survey`, `per_page` or `twice`")
            #expect(runs.doc.contains("`twice`: twice per respondent, one call after the other"))
        }
        #expect(JourneyStep.Runs(rawValue: "twice") == nil)
    }

    @Test func aRespondentWalksTheKindEndToEnd() async throws {
        let plan = try #require(JourneyStep.Runs.$registered.withValue(Self.kinds) { expectPlan(Self.plan) })
        let journey = plan.run.journey
        let transport = Script()
        let time = VirtualTime()
        let recorder = MetricsRecorder(lanes: 1, steps: journey.names)
        let context = SurveyContext(
            configuration: plan.run,
            requests: try SurveyRequests(journey: journey, headers: plan.run.api.headers, target: Self.target),
            seed: 1, transport: transport, clock: time.clock, recorder: recorder, interruption: OnceFlag(), runStart: time.now)
        var respondent = Respondent(index: 1, seed: 1, lane: 0)
        let result = await respondent.run(context)
        #expect(result == RespondentResult(ending: .completed, submitted: 2, unanswered: 0))
        #expect(transport.sent == ["GET /survey", "POST /ping", "POST /ping", "PUT /answers/1", "PUT /answers/2"])
        // A second before each ping, on the virtual clock (in slices); the answers have no think time.
        #expect(time.sleeps.reduce(0, +) == 2_000_000_000)
        let metrics = recorder.snapshot()
        #expect(metrics.perStep.values.map(\.calls) == [1, 2, 2])
        #expect(metrics.answersSubmitted == 2)
    }

    @Test func aPingThatFailsAbandonsTheRespondentWithNoSecond() async throws {
        let plan = try #require(JourneyStep.Runs.$registered.withValue(Self.kinds) { expectPlan(Self.plan) })
        let journey = plan.run.journey
        let transport = Script(failing: "/ping")
        let time = VirtualTime()
        let context = SurveyContext(
            configuration: plan.run,
            requests: try SurveyRequests(journey: journey, headers: plan.run.api.headers, target: Self.target),
            seed: 1, transport: transport, clock: time.clock, recorder: MetricsRecorder(lanes: 1, steps: journey.names),
            interruption: OnceFlag(), runStart: time.now)
        var respondent = Respondent(index: 1, seed: 1, lane: 0)
        let result = await respondent.run(context)
        #expect(result.ending == .abandoned(.failed(Step("ping"))))
        #expect(transport.sent == ["GET /survey", "POST /ping"])
    }
}

/// The survey: two questions at `/survey`, a 200 for every other path but `failing`'s 404.
private final class Script: Transport {
    private let failing: String?
    private let state = Mutex<[String]>([])

    init(failing: String? = nil) { self.failing = failing }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        let path = request.template.path
        state.withLock { $0.append("\(request.template.method) \(path)") }
        let body = path == "/survey" ? #"[{"id":1,"question":"a"},{"id":2,"question":"b"}]"# : ""
        let status = path == failing ? 404 : 200
        continuation.resume(returning: .response(TransportResponse(status: status, body: Array(body.utf8)), serviceTime: .milliseconds(1)))
    }

    func shutdown() async {}

    /// Every request's method and path, in order.
    var sent: [String] { state.withLock { $0 } }
}

/// Virtual time: a sleep moves the clock on at once and is remembered.
private final class VirtualTime: Sendable {
    private let state = Mutex<(now: UInt64, sleeps: [UInt64])>((1_000_000_000, []))

    var clock: EngineClock {
        EngineClock(
            now: { self.state.withLock { $0.now } },
            sleep: { nanoseconds in
                self.state.withLock {
                    $0.now += nanoseconds
                    $0.sleeps.append(nanoseconds)
                }
                await Task.yield()
            })
    }

    var now: UInt64 { state.withLock { $0.now } }
    var sleeps: [UInt64] { state.withLock { $0.sleeps } }
}
