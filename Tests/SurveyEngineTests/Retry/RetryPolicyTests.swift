import Testing

@testable import SurveyEngine
@testable import SurveyWire

@Suite struct BackoffTests {
    private func delays(_ backoff: Backoff, retries: Int = 6) -> [Duration] {
        (1...retries).map { backoff.baseDelay(beforeRetry: $0) }
    }

    @Test func noneNeverWaits() {
        #expect(delays(Backoff(.none, initial: .seconds(1))) == Array(repeating: .zero, count: 6))
    }

    @Test func constantWaitsInitialEveryTime() {
        #expect(delays(Backoff(.constant, initial: .milliseconds(500))) == Array(repeating: .milliseconds(500), count: 6))
    }

    @Test func linearGrowsByInitialAndCaps() {
        let backoff = Backoff(.linear, initial: .milliseconds(100), max: .milliseconds(450))
        #expect(delays(backoff) == [100, 200, 300, 400, 450, 450].map { .milliseconds($0) })
    }

    @Test func exponentialMultipliesAndCaps() {
        let backoff = Backoff(.exponential, initial: .milliseconds(200), max: .seconds(5), multiplier: 2)
        #expect(delays(backoff, retries: 7) == [200, 400, 800, 1600, 3200, 5000, 5000].map { .milliseconds($0) })
        let triple = Backoff(.exponential, initial: .milliseconds(10), max: .seconds(10), multiplier: 3)
        #expect(delays(triple, retries: 4) == [10, 30, 90, 270].map { .milliseconds($0) })
    }

    @Test func hugeExponentsCapInsteadOfOverflowing() {
        let backoff = Backoff(.exponential, initial: .seconds(1), max: .seconds(30), multiplier: 10)
        #expect(backoff.baseDelay(beforeRetry: 400) == .seconds(30))
    }
}

@Suite struct JitterTests {
    let backoff = Backoff(.exponential, initial: .milliseconds(100), max: .seconds(2), multiplier: 2)

    @Test func noneKeepsTheBaseDelay() {
        var random = SplitMix64(seed: 1)
        #expect(Jitter.none.apply(to: .milliseconds(400), previous: nil, backoff: backoff, using: &random) == .milliseconds(400))
    }

    @Test func fullJitterIsUniformBelowTheBase() {
        var random = SplitMix64(seed: 2)
        let base = Duration.milliseconds(400)
        let samples = (0..<20_000).map { _ in Jitter.full.apply(to: base, previous: nil, backoff: backoff, using: &random) }
        #expect(samples.allSatisfy { $0 >= .zero && $0 <= base })
        let mean = samples.map(\.milliseconds).reduce(0, +) / Double(samples.count)
        #expect(abs(mean - 200) < 5, "mean \(mean) should be near base/2")
    }

    @Test func equalJitterKeepsAtLeastHalf() {
        var random = SplitMix64(seed: 3)
        let base = Duration.milliseconds(400)
        let samples = (0..<20_000).map { _ in Jitter.equal.apply(to: base, previous: nil, backoff: backoff, using: &random) }
        #expect(samples.allSatisfy { $0 >= .milliseconds(200) && $0 <= base })
        let mean = samples.map(\.milliseconds).reduce(0, +) / Double(samples.count)
        #expect(abs(mean - 300) < 5, "mean \(mean) should be near 3/4 of the base")
    }

    @Test func decorrelatedJitterStaysBetweenInitialAndThreeTimesThePrevious() {
        var random = SplitMix64(seed: 4)
        var previous: Duration? = nil
        for _ in 0..<1_000 {
            let delay = Jitter.decorrelated.apply(to: .zero, previous: previous, backoff: backoff, using: &random)
            let upper = min(backoff.max, (previous ?? backoff.initial) * 3)
            #expect(delay >= backoff.initial && delay <= upper)
            previous = delay
        }
    }

    @Test func sameSeedSameSequence() {
        func sequence(_ jitter: Jitter, seed: UInt64) -> [Duration] {
            var random = SplitMix64(seed: seed)
            var previous: Duration?
            return (1...8).map { n in
                let d = jitter.apply(to: backoff.baseDelay(beforeRetry: n), previous: previous, backoff: backoff, using: &random)
                previous = d
                return d
            }
        }
        for jitter in Jitter.allCases {
            #expect(sequence(jitter, seed: 99) == sequence(jitter, seed: 99))
        }
        #expect(sequence(.full, seed: 99) != sequence(.full, seed: 100))
    }
}

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(
        attempts: 3, backoff: Backoff(.constant, initial: .milliseconds(50)), jitter: .none,
        retryOn: try! RetryConditions(names: ["400", "5xx", "timeout", "connection"]))

    @Test func retriesMatchingOutcomesUntilAttemptsAreSpent() {
        var random = SplitMix64(seed: 0)
        #expect(policy.decide(afterAttempt: 1, outcome: .status(400), using: &random) == .retry(after: .milliseconds(50)))
        #expect(policy.decide(afterAttempt: 2, outcome: .status(503), using: &random) == .retry(after: .milliseconds(50)))
        #expect(policy.decide(afterAttempt: 3, outcome: .status(503), using: &random) == .attemptsExhausted)
        #expect(policy.decide(afterAttempt: 1, outcome: .error(.connectionRefused), using: &random) == .retry(after: .milliseconds(50)))
        #expect(policy.decide(afterAttempt: 1, outcome: .error(.connectionReset), using: &random) == .retry(after: .milliseconds(50)))
    }

    @Test func doesNotRetryOutcomesOutsideItsConditions() {
        var random = SplitMix64(seed: 0)
        #expect(policy.decide(afterAttempt: 1, outcome: .status(404), using: &random) == .notRetryable)
        #expect(policy.decide(afterAttempt: 1, outcome: .error(.malformedResponse), using: &random) == .notRetryable)
        #expect(policy.decide(afterAttempt: 1, outcome: .error(.responseTooLarge), using: &random) == .notRetryable)
    }

    @Test func retryAfterWinsButIsFlooredAndCapped() {
        var random = SplitMix64(seed: 0)
        var capped = policy
        capped.backoff.max = .seconds(2)
        #expect(
            capped.decide(afterAttempt: 1, outcome: .status(503), retryAfter: .seconds(1), using: &random) == .retry(after: .seconds(1)))
        #expect(
            capped.decide(afterAttempt: 1, outcome: .status(503), retryAfter: .seconds(60), using: &random) == .retry(after: .seconds(2)))
        #expect(capped.decide(afterAttempt: 1, outcome: .status(503), retryAfter: .seconds(-5), using: &random) == .retry(after: .zero))
    }

    @Test func oneAttemptNeverRetries() {
        var random = SplitMix64(seed: 0)
        var once = policy
        once.attempts = 1
        #expect(once.decide(afterAttempt: 1, outcome: .status(400), using: &random) == .attemptsExhausted)
    }

    @Test func conditionsUnderstandClassesCodesAndKinds() throws {
        let conditions = try RetryConditions(names: ["4xx", "503", "malformed", "tls"])
        #expect(conditions.matches(status: 404))
        #expect(conditions.matches(status: 503))
        #expect(!conditions.matches(status: 500))
        #expect(conditions.matches(.malformedResponse))
        #expect(conditions.matches(.tlsHandshake) && conditions.matches(.tlsCertificate), "tls names both TLS kinds")
        #expect(!conditions.matches(.timeout))
        #expect(throws: RetryConditions.UnknownName(name: "6xx")) { try RetryConditions(names: ["6xx"]) }
        #expect(throws: RetryConditions.UnknownName(name: "99")) { try RetryConditions(names: ["99"]) }
        #expect(throws: RetryConditions.UnknownName(name: "sometimes")) { try RetryConditions(names: ["sometimes"]) }
    }

    @Test func conditionsTakeTheFormerNameOfAKind() throws {
        let conditions = try RetryConditions(names: ["Body_Too_Large"])
        #expect(conditions.matches(.responseTooLarge))
        #expect(conditions == (try RetryConditions(names: ["response_too_large"])))
        #expect(conditions.description == "[response_too_large]")
        #expect(ErrorKind(name: "body_too_large") == .responseTooLarge)
        #expect(ErrorKind(name: "response_too_large") == .responseTooLarge)
        #expect(ErrorKind(name: "too_large") == nil)
    }
}
