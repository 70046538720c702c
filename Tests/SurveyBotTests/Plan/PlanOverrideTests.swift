import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyWire

@Suite struct PlanOverrideTests {
    private func overrides(_ build: (inout PlanOverrides) throws -> Void) rethrows -> PlanOverrides {
        var o = PlanOverrides()
        try build(&o)
        return o
    }

    @Test func flagsOverrideTheFile() throws {
        let o = overrides {
            $0.set("concurrency", to: "50", option: "--concurrency")
            $0.set("target", to: "http://[::1]:9000", option: "--target")
            $0.set("seed", to: "7", option: "--seed")
        }
        let plan = try #require(expectPlan(lines("concurrency: 5", "respondents: 100"), overrides: o))
        #expect(plan.run.concurrency == 50)
        #expect(plan.target == .url(HTTPTarget(scheme: .http, host: "::1", port: 9000)))
        #expect(plan.run.seed == 7)
        #expect(plan.run.load == .closed(respondents: 100))
    }

    @Test func setReachesNestedKeysAndCreatesBlocks() throws {
        let o = try overrides {
            try $0.set(assignment: "retry.submit.attempts=4")
            try $0.set(assignment: "retry.submit.on=[5xx, timeout]")
            try $0.set(assignment: "thresholds.submit.p95=< 200ms")
            try $0.set(assignment: "api.headers.X-Trace.Id=abc")
        }
        let plan = try #require(expectPlan(lines("retry:", "  submit:", "    attempts: 2", "    backoff: none"), overrides: o))
        #expect(plan.run.retry[.submit].attempts == 4)
        #expect(plan.run.retry[.submit].backoff.strategy == .none, "keys the override did not touch stay")
        #expect(!plan.run.retry[.submit].retryOn.matches(status: 400))
        #expect(plan.thresholds.map(\.description) == ["submit.p95 < 200ms"])
        #expect(plan.run.api.headers == [HTTPHeader(name: "X-Trace.Id", value: "abc")])
    }

    @Test func rateSwitchesAClosedPlanToOpen() throws {
        let o = overrides {
            $0.set("rate", to: "20/s", option: "--rate")
            $0.set("duration", to: "30s", option: "--duration")
        }
        let plan = try #require(expectPlan(lines("respondents: 100"), overrides: o))
        #expect(plan.run.load == .open(rate: Rate(perSecond: 20), ramp: []))
    }

    @Test func respondentsSwitchesAnOpenPlanToClosed() throws {
        let o = overrides { $0.set("respondents", to: "3", option: "--respondents") }
        let plan = try #require(expectPlan(lines("rate: 5/s", "duration: 1m", "ramp:", "  - 10s: 10/s"), overrides: o))
        #expect(plan.run.load == .closed(respondents: 3))
    }

    @Test func overrideErrorsNameTheOptionNotALine() {
        let o = try! overrides {
            $0.set("concurrency", to: "0", option: "--concurrency")
            try $0.set(assignment: "concurency=3")
            try $0.set(assignment: "builtin.fail_rate=150%")
        }
        let diagnostics = expectErrors(lines("name: x"), overrides: o)
        #expect(
            diagnostics.map(\.description).sorted() == [
                "error: --concurrency 0: concurrency must be at least 1, found 0",
                "error: --set builtin.fail_rate=150%: a percentage cannot be over 100%, found 150%",
                "error: --set concurency=3: unknown key 'concurency' (did you mean 'concurrency'?)",
            ])
    }

    @Test func setWithoutEqualsIsAUsageError() {
        var o = PlanOverrides()
        #expect(throws: PlanOverrides.OverrideError.self) { try o.set(assignment: "concurrency") }
        #expect(throws: PlanOverrides.OverrideError.self) { try o.set(assignment: "=5") }
    }

    @Test func keyPathsKeepThresholdNamesWhole() {
        #expect(PlanOverrides.keyPath("thresholds.submit.p95") == ["thresholds", "submit.p95"])
        #expect(PlanOverrides.keyPath("retry.submit.attempts") == ["retry", "submit", "attempts"])
    }

    @Test func threadsSetsTheEngineThreads() throws {
        let arguments = try #require(
            {
                if case .arguments(let parsed) = try ArgumentParser(spec: RunCommand.spec).parse(["p.plan", "--threads", "1"]) {
                    return parsed
                }
                return nil
            }())
        let plan = try #require(expectPlan("", overrides: try PlanOptions.overrides(from: arguments)))
        #expect(plan.run.threads == 1)
        #expect(try #require(expectPlan("")).run.threads == nil, "one per core unless asked")
        expectSingleError(lines("engine:", "  threads: 0"), line: 2, column: 12, contains: "engine.threads must be between 1 and 256")
    }
}
