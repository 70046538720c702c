import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyJourney
@testable import SurveyWire

@Suite struct PlanDecodingTests {
    @Test func emptyPlanGetsEveryDefault() throws {
        let plan = try #require(expectPlan(""))
        #expect(plan.name == "test")
        #expect(plan.target == .builtin)
        #expect(plan.run.load == .closed(respondents: 1))
        #expect(plan.run.concurrency == 10)
        #expect(plan.run.duration == nil)
        #expect(plan.run.client.timeout == .seconds(5))
        #expect(plan.run.client.connectTimeout == nil, "the connect is bounded by the timeout alone")
        #expect(plan.run.client.maxBodyBytes == 1 << 20)
        #expect(plan.run.think == .zero)
        #expect(plan.run.order == .sequential)
        #expect(plan.run.seed == nil)
        #expect(plan.run.api == SurveyAPI())
        #expect(plan.run.answers.fallback == ["ok"])
        #expect(plan.run.retry[.questions].attempts == 3)
        #expect(plan.run.retry[.submit].retryOn.matches(status: 400))
        #expect(!plan.run.retry[.questions].retryOn.matches(status: 400))
        #expect(plan.run.retry.budget == nil)
        #expect(plan.thresholds.isEmpty)
        #expect(plan.builtin == ReferenceServerConfiguration())
        #expect(plan.report.formats == [.json, .markdown])
        #expect(plan.report.directory == "reports")
        #expect(plan.report.includeAnswers == false)
    }

    @Test func readsTheSpecExample() throws {
        let plan = try #require(
            expectPlan(
                lines(
                    "name: smoke",
                    "target: http://127.0.0.1:8080/v1",
                    "respondents: 20",
                    "concurrency: 5",
                    "duration: 2m",
                    "timeout: 5s",
                    "think: 200ms..1s",
                    "order: reverse",
                    "seed: 42",
                    "api:",
                    "  questions: GET /questions",
                    "  submit: PUT /question/submit",
                    "  headers:",
                    "    Authorization: Bearer ${SURVEY_TOKEN}",
                    "answers:",
                    "  1: red",
                    "  2: [pizza, pasta, sushi]",
                    "  \"*\": \"no opinion\"",
                    "retry:",
                    "  questions:",
                    "    attempts: 5",
                    "    backoff: exponential",
                    "    initial: 200ms",
                    "    max: 5s",
                    "    multiplier: 2",
                    "    jitter: full",
                    "    on: [5xx, timeout, connection]",
                    "  submit:",
                    "    attempts: 3",
                    "    backoff: constant",
                    "    initial: 500ms",
                    "    on: [400, 5xx, timeout, connection]",
                    "  budget: 20%",
                    "thresholds:",
                    "  submit.success_rate: \">= 95%\"",
                    "  submit.p95: \"< 300ms\"",
                    "  questions.p99: \"< 1s\"",
                    "  survey.completion_rate: \">= 99%\"",
                    "builtin:",
                    "  questions: 10",
                    "  fail_rate: 20%",
                    "  cold_start: 2",
                    "  latency: 5ms..20ms",
                    "report:",
                    "  formats: [json, markdown, junit]",
                    "  dir: out"),
                environment: ["SURVEY_TOKEN": "s3cret"]))
        #expect(plan.target == .url(HTTPTarget(scheme: .http, host: "127.0.0.1", port: 8080, basePath: "/v1")))
        #expect(plan.run.load == .closed(respondents: 20))
        #expect(plan.run.duration == .seconds(120))
        #expect(plan.run.think == .uniform(DurationRange(.milliseconds(200), .seconds(1))))
        #expect(plan.run.order == .reverse)
        #expect(plan.run.seed == 42)
        #expect(plan.run.api.submit == SurveyAPI.Call(method: "PUT", path: "/question/submit"))
        #expect(plan.run.api.headers == [HTTPHeader(name: "Authorization", value: "Bearer s3cret")])
        #expect(plan.environmentKeys == ["api.headers.Authorization"])
        #expect(plan.run.answers.choices(for: 2) == ["pizza", "pasta", "sushi"])
        #expect(plan.run.answers.choices(for: 9) == ["no opinion"])
        #expect(plan.run.retry[.questions].attempts == 5)
        #expect(plan.run.retry[.questions].backoff == Backoff(.exponential, initial: .milliseconds(200), max: .seconds(5), multiplier: 2))
        #expect(plan.run.retry[.questions].jitter == .full)
        #expect(plan.run.retry[.submit].backoff.strategy == .constant)
        #expect(plan.run.retry[.submit].backoff.initial == .milliseconds(500))
        #expect(plan.run.retry.budget == RetryBudgetPolicy(ratio: 0.2, minimum: 10))
        #expect(
            plan.thresholds.map(\.description) == [
                "submit.success_rate >= 95%", "submit.p95 < 300ms", "questions.p99 < 1s", "survey.completion_rate >= 99%",
            ])
        #expect(plan.thresholds[0].limit == 0.95)
        #expect(plan.thresholds[1].limit == 300)
        #expect(plan.thresholds[2].limit == 1000)
        #expect(plan.builtin.faults.failRate == 0.2)
        #expect(plan.builtin.faults.coldStart == 2)
        #expect(plan.builtin.faults.latency == DurationRange(.milliseconds(5), .milliseconds(20)))
        #expect(plan.report.formats == [.json, .markdown, .junit])
        #expect(plan.report.directory == "out")
    }

    @Test(arguments: [
        ("250ms", Duration.milliseconds(250)), ("5s", .seconds(5)), ("2m", .seconds(120)),
        ("1h", .seconds(3600)), ("1m30s", .seconds(90)), ("1.5s", .milliseconds(1500)),
        ("100us", .microseconds(100)), ("0", .zero), ("0s", .zero), ("1h2m3s4ms", .milliseconds(3_723_004)),
    ])
    func parsesDurations(text: String, expected: Duration) {
        guard case .value(let d) = parseDuration(text) else {
            Issue.record("could not parse \(text)")
            return
        }
        #expect(d == expected)
    }

    @Test(arguments: [
        ("1MiB", 1 << 20), ("512KiB", 512 << 10), ("2MB", 2_000_000), ("1000000", 1_000_000), ("1_000_000", 1_000_000),
        ("1 mib", 1 << 20), ("1.5MiB", 1_572_864), ("0.5kb", 500), ("1GiB", 1 << 30), ("1B", 1), ("64kib", 65536),
    ])
    func maxBodyTakesByteSizes(text: String, expected: Int) throws {
        let plan = try #require(expectPlan(lines("max_body: \(text)")))
        #expect(plan.run.client.maxBodyBytes == expected)
    }

    @Test func byteSizesFormatInTheirLargestWholeUnit() {
        #expect(ValueKind<Int>.byteSize.format(1 << 20) == "1MiB")
        #expect(ValueKind<Int>.byteSize.format(2_000_000) == "2MB")
        #expect(ValueKind<Int>.byteSize.format(1_000_001) == "1000001B")
        #expect(ValueKind<Int>.byteSize.format(0) == "0B")
    }

    @Test func retryOnTakesTheFormerNameOfResponseTooLarge() throws {
        let plan = try #require(expectPlan(lines("retry:", "  questions:", "    on: [5xx, body_too_large]")))
        #expect(plan.run.retry[.questions].retryOn.matches(.responseTooLarge))
        #expect(plan.run.retry[.questions].retryOn.description == "[5xx, response_too_large]")
    }

    @Test func graceIsReadAndNeedsADuration() throws {
        let plan = try #require(expectPlan(lines("duration: 1s", "grace: 250ms")))
        #expect(plan.run.grace == .milliseconds(250))
        #expect(try #require(expectPlan(lines("duration: 1s", "grace: 0s"))).run.grace == .zero)
        #expect(try #require(expectPlan(lines("duration: 1s"))).run.grace == nil, "the timeout then")
        expectSingleError(lines("respondents: 3", "grace: 2s"), line: 2, column: 1, contains: "'grace' needs 'duration'")
    }

    @Test func parsesRatesPercentagesAndRanges() throws {
        #expect(try ValueKind<Rate>.rate.read("20/s").get() == Rate(perSecond: 20))
        #expect(try ValueKind<Rate>.rate.read("600/m").get() == Rate(perSecond: 10))
        #expect(try ValueKind<Rate>.rate.read("7200/h").get() == Rate(perSecond: 2))
        #expect(try ValueKind<Double>.fraction.read("5%").get() == 0.05)
        #expect(try ValueKind<Double>.fraction.read("0.05").get() == 0.05)
        #expect(try ValueKind<Double>.fraction.read("100%").get() == 1)
        #expect(
            try ValueKind<DurationRange>.durationRange.read("100ms..300ms").get() == DurationRange(.milliseconds(100), .milliseconds(300)))
        #expect(try ValueKind<DurationRange>.durationRange.read("7ms").get() == DurationRange(fixed: .milliseconds(7)))
        #expect(try ValueKind<Int>.integer.read("20_000").get() == 20_000)
    }

    @Test func openModelWithRateAndRamp() throws {
        let plan = try #require(expectPlan(lines("rate: 10/s", "ramp:", "  - 30s: 50/s", "  - 1m: 0/s", "concurrency: 100")))
        #expect(
            plan.run.load
                == .open(
                    rate: Rate(perSecond: 10),
                    ramp: [
                        RampStage(duration: .seconds(30), target: Rate(perSecond: 50)),
                        RampStage(duration: .seconds(60), target: Rate(perSecond: 0)),
                    ]))
        #expect(plan.summary.hasPrefix("open model, 10/s, ramp of 2 stages"))
    }

    @Test func singleScalarRetryConditionIsAListOfOne() throws {
        let plan = try #require(expectPlan(lines("retry:", "  submit:", "    on: 5xx")))
        #expect(plan.run.retry[.submit].retryOn.matches(status: 503))
        #expect(!plan.run.retry[.submit].retryOn.matches(status: 400))
    }

    @Test func initialAboveTheDefaultMaxRaisesTheMax() throws {
        let plan = try #require(expectPlan(lines("retry:", "  submit:", "    backoff: constant", "    initial: 8s")))
        #expect(plan.run.retry[.submit].backoff.max == .seconds(8))
    }

    @Test func latencyThresholdsAcceptBareMilliseconds() throws {
        let plan = try #require(
            expectPlan(
                lines("thresholds:", "  survey.p99: \"<= 250\"", "  submit.retries: \"== 0\"", "  survey.attempts_per_s: \"> 100/s\"")))
        #expect(plan.thresholds.map(\.limit) == [250, 0, 100])
        #expect(plan.thresholds[0].comparison == .lessOrEqual)
    }

    @Test func headerValuesFromTheEnvironmentAreMarked() throws {
        let plan = try #require(
            expectPlan(lines("name: ${RUN_NAME}", "api:", "  headers:", "    X-A: plain"), environment: ["RUN_NAME": "nightly"]))
        // A name is only ever shown, so only its shown form is kept.
        #expect(plan.name == "${RUN_NAME}")
        #expect(plan.environmentKeys == ["name"])
    }

    @Test func examplePlansAreValid() throws {
        for name in ["smoke", "stress", "flaky", "data-driven", "journey"] {
            let path = repositoryPath("plans/\(name).plan")
            let result = PlanLoader(environment: [:]).load(path: path)
            if case .failure(let errors) = result {
                Issue.record("\(name).plan: \(errors)")
            }
        }
    }
}
