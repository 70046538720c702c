import SurveyJourney
import SurveyWire

/// What one step saw over a run: calls, attempts, outcomes, latencies.
public struct StepMetrics: Sendable, Hashable, Mergeable {
    /// Logical calls (a call may take several attempts).
    public var calls = 0
    /// HTTP attempts sent.
    public var attempts = 0
    /// Attempts that could not be made because this process ran out of descriptors, socket
    /// memory or local ports (`ErrorKind.localResource`): not sent, so in no other count here —
    /// not `attempts`, `failedAttempts`, `errors`, the latencies or the timeline.
    public var localResource = 0
    /// Calls that finally succeeded, on whichever attempt.
    public var succeeded = 0
    /// Calls that gave up: out of attempts, an outcome not retried, a retry the budget refused,
    /// or a stop. `succeeded + failed == calls`.
    public var failed = 0
    /// Calls that succeeded on their first attempt.
    public var firstTrySucceeded = 0
    /// Attempts that failed (any status that is not a success, or an error).
    public var failedAttempts = 0
    /// Attempts by the status code they received, successes included. A 2xx whose body breaks
    /// the contract is not here but under `malformed_response` in `errors`.
    public var statuses: [Int: Int] = [:]
    /// Attempts by the status code they received, failures only: every status outside 2xx,
    /// unless the step's `expect` says otherwise (`ResponseExpectation.statuses`).
    public var failedStatuses: [Int: Int] = [:]
    /// Attempts that got no usable response, by why.
    public var errors: [ErrorKind: Int] = [:]
    /// Retries the run's retry budget refused.
    public var retriesDenied = 0
    /// Retries not made because the step is not idempotent and the failed attempt's request may
    /// have reached the server (`JourneyStep.idempotent`): sent again, it could be stored twice.
    public var retriesUnsafe = 0
    /// Per succeeded attempt, the corrected latency in nanoseconds: from the intended start
    /// (equal to `serviceTime` in the closed model). Failed attempts are not in it: a refused
    /// connection fails in microseconds, and would read as a fast server (`failedLatency`).
    public var correctedLatency = Histogram()
    /// Per succeeded attempt, from its start to its end in nanoseconds: the raw service time.
    public var serviceTime = Histogram()
    /// Per failed attempt, its time to fail in nanoseconds, from its intended start like
    /// `correctedLatency`. An attempt that failed before anything was timed (a host that did not
    /// resolve: its service time is zero) is not in it.
    public var failedLatency = Histogram()
    /// Attempts that opened a connection of their own.
    public var newConnections = 0
    /// Attempts that went over a connection kept alive from an earlier one.
    public var reusedConnections = 0
    /// The TCP connect of each new connection, in nanoseconds (k6's `http_req_connecting`).
    public var connectTime = Histogram()
    /// The TLS handshake of each new https connection, in nanoseconds (`http_req_tls_handshaking`).
    public var tlsHandshakeTime = Histogram()
    /// New https connections by what TLS agreed: `"TLSv1.3 TLS_AES_256_GCM_SHA384": 12`.
    public var tlsParameters: [String: Int] = [:]
    /// New https connections that resumed an earlier session instead of a full handshake.
    public var tlsResumed = 0
    /// Attempts sent again on a new connection because their kept-alive one was found closed
    /// by the server before any byte of a response, or left unprocessed by an HTTP/2 GOAWAY:
    /// not a retry of the plan's, not a failure.
    public var reconnects = 0
    /// By the protocol they went over: attempts, and the connections they opened.
    public var protocols = ProtocolCounts()
    /// For each error kind with more to say than its name, the first thing said: why a
    /// certificate was refused, which alert ended a handshake.
    public var errorSamples: [ErrorKind: String] = [:]
    /// For each class of failed status (4xx, 5xx, …), the server's reason for the first
    /// status of it that gave one: `[401: "{\"error\":\"Invalid token\"}"]`, an excerpt
    /// of its body (`ResponseExcerpt`), secrets masked. At most one a class: bounded.
    public var statusSamples: [Int: String] = [:]

    /// Nothing counted yet.
    public init() {}

    /// Retries: attempts beyond the first of each call, those not sent for want of a local
    /// resource included (`attempts + localResource − calls`).
    public var retries: Int { attempts + localResource - calls }

    /// Whether `record` is an attempt that never left this process for want of a local
    /// resource: counted apart, not as an attempt.
    static func isLocal(_ record: AttemptRecord) -> Bool {
        record.outcome == .error(.localResource)
    }

    /// Counts one attempt.
    mutating func add(_ record: AttemptRecord) {
        if Self.isLocal(record) {
            localResource += 1
            if let detail = record.detail, errorSamples[.localResource] == nil { errorSamples[.localResource] = detail }
            return
        }
        attempts += 1
        if !record.succeeded { failedAttempts += 1 }
        switch record.outcome {
        case .status(let status):
            statuses.add(1, to: status)
            if !record.succeeded {
                failedStatuses.add(1, to: status)
                if let detail = record.detail, wantsSample(of: record.outcome) { statusSamples[status] = detail }
            }
        case .error(let kind):
            errors.add(1, to: kind)
            if let detail = record.detail, errorSamples[kind] == nil { errorSamples[kind] = detail }
        }
        if record.succeeded {
            correctedLatency.record(record.correctedLatency)
            serviceTime.record(record.serviceTime)
        } else if record.serviceTime > .zero {
            failedLatency.record(record.correctedLatency)
        }
        if let connection = record.connection {
            if connection.reused {
                reusedConnections += 1
            } else {
                newConnections += 1
                if let time = connection.connectTime { connectTime.record(time) }
                if let time = connection.tlsHandshakeTime { tlsHandshakeTime.record(time) }
                if let tls = connection.tls { tlsParameters.add(1, to: tls) }
                if connection.tlsResumed { tlsResumed += 1 }
                protocols[connection.wire].connections += 1
            }
            // Under HTTP/2 several requests sent again after a GOAWAY share one new connection.
            if connection.reconnected { reconnects += 1 }
            protocols[connection.wire].attempts += 1
        }
    }

    /// Whether a failed attempt of `outcome` would give this step its first sample of that
    /// error kind, or of that class of status.
    func wantsSample(of outcome: AttemptOutcome) -> Bool {
        switch outcome {
        case .error(let kind): errorSamples[kind] == nil
        case .status(let status): !statusSamples.keys.contains { $0 / 100 == status / 100 }
        }
    }

    /// A call ended after `attempts` attempts.
    mutating func endCall(succeeded: Bool, attempts: Int) {
        calls += 1
        if succeeded {
            self.succeeded += 1
            if attempts == 1 { firstTrySucceeded += 1 }
        } else {
            failed += 1
        }
    }

    /// Adds another part's counts (exact: histograms merge bucket by bucket).
    package mutating func merge(_ other: StepMetrics) {
        calls += other.calls
        attempts += other.attempts
        localResource += other.localResource
        succeeded += other.succeeded
        failed += other.failed
        firstTrySucceeded += other.firstTrySucceeded
        failedAttempts += other.failedAttempts
        statuses.merge(other.statuses, uniquingKeysWith: +)
        failedStatuses.merge(other.failedStatuses, uniquingKeysWith: +)
        errors.merge(other.errors, uniquingKeysWith: +)
        retriesDenied += other.retriesDenied
        retriesUnsafe += other.retriesUnsafe
        correctedLatency.merge(other.correctedLatency)
        serviceTime.merge(other.serviceTime)
        failedLatency.merge(other.failedLatency)
        newConnections += other.newConnections
        reusedConnections += other.reusedConnections
        connectTime.merge(other.connectTime)
        tlsHandshakeTime.merge(other.tlsHandshakeTime)
        tlsParameters.merge(other.tlsParameters, uniquingKeysWith: +)
        tlsResumed += other.tlsResumed
        reconnects += other.reconnects
        protocols.add(other.protocols)
        errorSamples.merge(other.errorSamples) { first, _ in first }
        for (status, sample) in other.statusSamples.sorted(by: { $0.key < $1.key }) where wantsSample(of: .status(status)) {
            statusSamples[status] = sample
        }
    }
}

/// How much a step used one protocol (`WireProtocol`).
public struct ProtocolCount: Sendable, Hashable {
    /// Attempts that went over it.
    public var attempts = 0
    /// Connections of it that attempts opened.
    public var connections = 0

    /// Counts.
    public init(attempts: Int = 0, connections: Int = 0) {
        self.attempts = attempts
        self.connections = connections
    }
}

/// A step's use of each protocol, kept in place: every attempt counts here, and a dictionary
/// would hash on every one.
public struct ProtocolCounts: Sendable, Hashable {
    private var http1 = ProtocolCount()
    private var h2 = ProtocolCount()
    private var h2c = ProtocolCount()

    /// None used yet.
    public init() {}

    /// The counts of `wire`.
    public subscript(_ wire: WireProtocol) -> ProtocolCount {
        get {
            switch wire {
            case .http1: http1
            case .h2: h2
            case .h2c: h2c
            }
        }
        set {
            switch wire {
            case .http1: http1 = newValue
            case .h2: h2 = newValue
            case .h2c: h2c = newValue
            }
        }
    }

    /// The protocols that carried an attempt or opened a connection, in a fixed order.
    public var used: [(wire: WireProtocol, count: ProtocolCount)] {
        WireProtocol.allCases.map { ($0, self[$0]) }.filter { $0.count != ProtocolCount() }
    }

    /// Adds another part's counts.
    mutating func add(_ other: ProtocolCounts) {
        for wire in WireProtocol.allCases {
            self[wire].attempts += other[wire].attempts
            self[wire].connections += other[wire].connections
        }
    }
}

extension Dictionary where Value == Int {
    /// Adds `count` to `key`'s count, in place when it has one: `self[key, default: 0] += count`
    /// without the default's closure, which every attempt made and dropped for each count.
    @inline(__always)
    mutating func add(_ count: Int, to key: Key) {
        if let index = index(forKey: key) {
            values[index] += count
        } else {
            self[key] = count
        }
    }
}
