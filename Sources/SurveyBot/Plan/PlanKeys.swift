import SurveyEngine
import SurveyJourney
import SurveyWire

/// Every key of the plan format, once: the table `PlanKey` describes. The order is the order of
/// the key reference and of "known keys" in errors.
enum PlanKeys {
    static let all: [PlanKey] = topLevel + answerKeys + api + retry + tls + engine + builtin + report

    /// The keys by path.
    static let byPath: [String: PlanKey] = Dictionary(all.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

    /// The keys directly under the block at `path` (`""` for the top level), in table order.
    static func children(of path: String) -> [PlanKey] {
        all.filter { $0.parent == path }
    }

    private static let topLevel: [PlanKey] = [
        .custom(
            "name", kind: "text", default: "the file name without `.plan`", "the report's title and file-name prefix",
            digest: .always(\.name),
            decode: { decoder, entry, plan in
                if let name = decoder.read(entry, "name", .text) { plan.name = name }
            }),
        .custom(
            "target", kind: "`builtin` or URL", default: "`builtin`",
            "`builtin` starts the reference server in-process on a free loopback port (configured by `builtin:`); otherwise "
                + "`http://host[:port][/base]` or `https://…`, where an optional base path prefixes the API paths. IPv6 hosts go in "
                + "brackets: `http://[::1]:8080`. The base path, like the API paths, holds RFC 3986 characters only: anything else "
                + "percent-encoded (`%20`)", digest: .always(\.shownTarget),
            applyDefault: { $0.target = .builtin }, decode: { $0.readTarget($1, into: &$2) }),
        .custom(
            "respondents", kind: "integer ≥ 1", default: "`1`", "**closed model**: respondents in total, each taking the survey once",
            digest: .always {
                guard case .closed(let respondents) = $0.run.load else { return "none" }
                return String(respondents)
            },
            applyDefault: { $0.run.load = .closed(respondents: 1) }, decode: { $0.readRespondents($1, into: &$2) }),
        .value(
            "concurrency", .integer(atLeast: 1, "concurrency"), default: 10, into: \.run.concurrency,
            "at most this many respondents at once (in the open model, arrivals beyond it are dropped and counted)"),
        .optional(
            "duration", .positiveDuration("duration"), into: \.run.duration,
            "a hard cap on the run, both models: once it expires no attempt starts, attempts in flight get at most `grace`, and "
                + "respondents still under way are counted as cut short; in the open model, also how long new respondents keep arriving"),
        .optional(
            "grace", .duration, default: "the `timeout`", into: \.run.grace, absent: "timeout",
            "with `duration`: how long an attempt in flight when the duration expires (or a signal or an `abort` threshold stops the run) may go on (never longer than its own "
                + "`timeout`) before it is cut and counted as a `timeout`; the run ends within `duration` + `grace`"),
        .custom(
            "rate", kind: "rate", default: "none",
            "**open model**: new respondents per unit of time; needs `duration` unless `ramp` is given",
            digest: .always {
                guard case .open(let rate, _) = $0.run.load else { return "none" }
                return rate?.description ?? "none"
            },
            decode: { $0.readRate($1, into: &$2) }),
        .custom(
            "ramp", kind: "list of `- duration: rate`", default: "none",
            "open-model stages: move linearly from the current rate (`rate`, or 0) to the stage's rate over its duration; with "
                + "`duration` longer than the stages, the last rate holds until it ends",
            digest: .always {
                guard case .open(_, let ramp) = $0.run.load else { return "none" }
                return "[" + ramp.map { "\($0.duration.compactDescription): \($0.target)" }.joined(separator: ", ") + "]"
            },
            decode: { $0.readRamp($1, into: &$2) }),
        .value(
            "timeout", .positiveDuration("timeout"), default: HTTPClientConfiguration().timeout, into: \.run.client.timeout,
            "per HTTP attempt, from sending the request to the last byte of the response"),
        .optional(
            "connect_timeout", .positiveDuration("connect_timeout"), default: "the `timeout`", into: \.run.client.connectTimeout,
            absent: "timeout",
            "per TCP connect"),
        .value(
            "max_body", .byteSize(in: 1...(1 << 30), "max_body"), default: HTTPClientConfiguration().maxBodyBytes,
            into: \.run.client.maxBodyBytes,
            "the largest response body read, kept in memory; a longer one, declared or as it arrives, fails the attempt as "
                + "`response_too_large`"),
        .value(
            "http", .word, default: HTTPVersion.auto, into: \.run.client.version, digested: .whenGiven,
            "the HTTP version: `auto` offers h2 and http/1.1 over TLS by ALPN and speaks what the server picks (HTTP/1.1 over "
                + "plain http), as the app's URLSession and browsers do; `1.1` speaks HTTP/1.1 only; `2` speaks HTTP/2 only — "
                + "over TLS a server that does not pick h2 fails every attempt as `protocol_error`, over `http://` it is h2c "
                + "with prior knowledge (also `--http`)"),
        .value(
            "connections", .word, default: ConnectionSharing.perRequest, into: \.run.client.sharing, digested: .whenGiven,
            "how respondents hold connections: `per_request` gives each request in flight a connection to itself, kept "
                + "alive for the next request of any respondent on the same thread, one HTTP/2 stream at a time; "
                + "`per_respondent` gives each respondent a connection of its own for its whole survey, kept while it thinks "
                + "and closed when it leaves (as each phone running the app has its own); `shared` multiplexes the requests of a thread's respondents as HTTP/2 streams on as few "
                + "connections as the server's stream limit allows (a proxy or CDN in front of the server; h2load's `-m`). "
                + "HTTP/1.1 cannot share: one request per connection at a time either way"),
        .custom(
            Plan.proxyKey, kind: "proxy URL, `none` or `${row.COLUMN}`", default: "the environment's (`https_proxy`, `http_proxy`, …)",
            "the HTTP proxy every connection goes through (docs/proxy.md): `[http://][user[:password]@]host[:port]` (port 1080 "
                + "unless given; credentials go as `Proxy-Authorization: Basic` and are never shown), `none` for no proxy whatever "
                + "the environment says, or `${row.proxy}`: each respondent through the proxy of its data row's column (an empty "
                + "value for none), which implies `connections: per_respondent`. Left out, the environment's as curl reads it; "
                + "`NO_PROXY` applies either way; `--proxy` overrides it",
            // How the traffic reaches the target, not what the run does (as `engine.threads`):
            // shards behind different proxies are one plan, and the environment's proxy, which
            // the plan does not hold, could not be digested anyway.
            digest: .leftOut,
            decode: { $0.readProxy($1, into: &$2) }),
        .value(
            "think", .thinkTime, default: .zero, into: \.run.think,
            "the pause before each submit: uniform over a range (`200ms..1s`; one duration is fixed), `normal(mean, deviation)` "
                + "(a negative draw is drawn again), `exponential(mean)`, or `lognormal(median, p90)`; seeded"),
        .optional(
            "pace", .positiveDuration("pace"), into: \.run.pace,
            "the least time between the starts of a respondent's submits (k6's and Gatling's pacing): when a submit and the next "
                + "think took less, the respondent waits the rest"),
        .value(
            "cookies", .boolean, default: true, into: \.run.cookies,
            "each respondent keeps its own cookie jar (RFC 6265: domain, path, expiry, `Secure`), sending back what responses set; "
                + "values are never shown. `false` sends no cookie but the `api.headers`' own"),
        .value("order", .word, default: QuestionOrder.sequential, into: \.run.order, "the order in which a respondent walks the questions"),
        .optional(
            "seed", .seed, default: "derived from the run id (`--run-id`, else random) and recorded in the report", into: \.run.seed,
            absent: "random",
            "makes answer choice, order, think time, jitter and builtin faults repeatable"),
        .custom(
            "data", kind: "path", default: "none",
            "a CSV file (RFC 4180: a header row naming the columns, then one row per respondent; UTF-8, CRLF or LF), relative to "
                + "the plan file; each respondent takes a row, whose values `${row.COLUMN}` puts in paths, headers, bodies and "
                + "answers, and whose `answer.<id>` columns answer question `<id>`. Its values are secrets: never shown",
            // Digested by its path as shown and its content's hash: other rows are another run;
            // values are never digested one by one.
            digest: .always { $0.dataFile.map { "\($0.shownPath) \($0.digest)" } ?? "none" },
            decode: { $0.readData($1, into: &$2) }),
        .value(
            "data_order", .word, default: DataOrder.sequential, into: \.dataOrder,
            "how respondents take the rows: `sequential` (round and round), `random` (seeded), `unique` (each row at most once: "
                + "when the rows run out, no new respondent starts and the report says `stopped_by: data`); with `--shard i/n` "
                + "each shard takes its own rows"),
        .block("api", "the survey API's calls and headers"),
        .custom(
            "journey", .steps, kind: "block of steps", default: "the `api` keys' steps",
            "the steps each respondent takes, in order, each a block named by the step (below, \"Journeys\"): its request, "
                + "when it runs, what it reads from its response, its retry policy. Instead of `api`'s calls: with it, `api` "
                + "holds only `headers`, and `retry` only the budget",
            digest: .whenGiven(\.canonicalJourney),
            decode: { $0.readJourney($1, into: &$2) }),
        .custom(
            "answers", .entries, kind: "block", default: "every question answered `ok`", "what respondents answer, by question id",
            digest: .always {
                "{"
                    + $0.shownAnswers.sorted { $0.key < $1.key }.map { "\($0.key): [\($0.value.joined(separator: ", "))]" }
                    .joined(separator: ", ") + "}"
            },
            applyDefault: { $0.run.answers = AnswerBook(fallback: ["ok"]) }, decode: { $0.readAnswers($1, into: &$2) }),
        .block("retry", "retry policies"),
        .block("tls", "how `https://` targets are verified, and the client's own certificate"),
        .block("engine", "how survey-bot itself runs: its threads"),
        .custom(
            "thresholds", .entries, kind: "block", default: "none", "pass/fail criteria",
            digest: .always { "[" + $0.thresholds.map(\.planText).joined(separator: ", ") + "]" },
            applyDefault: { $0.thresholds = [] }, decode: { $0.readThresholds($1, into: &$2) }),
        .block("builtin", "the reference server's questions and faults (used with `target: builtin`)"),
        .block("report", "report formats and directory"),
    ]

    private static let api: [PlanKey] = [
        .value(
            "api.questions", .call(defaultMethod: "GET"), default: SurveyAPI().questions, into: \.run.api.questions,
            digest: .always { $0.digestedCall(.questions) },
            "fetches the questions: a JSON list of `{\"id\": 1, \"question\": \"…\"}` (extra fields ignored)"),
        .value(
            "api.submit", .call(defaultMethod: "POST"), default: SurveyAPI().submit, into: \.run.api.submit,
            digest: .always { $0.digestedCall(.submit) },
            "submits one answer as `{\"id\": 1, \"answer\": \"red\"}` (or `submit_body`); 2xx is success"),
        .custom(
            "api.questions_list", kind: "JSON path", default: "the top level",
            "where the questions are in the questions response, for a backend that wraps them: the list (`data.items`), or the "
                + "questions across lists (`$.survey.groups[*].questions[*]`: a path with `[*]` takes every question it reaches, and "
                + "every element of every list it reaches)",
            digest: .always { $0.shownText("api.questions_list", $0.run.api.questionsList.text) },
            decode: { decoder, entry, plan in
                if let path = decoder.read(entry, "api.questions_list", .jsonPath) { plan.run.api.questionsList = path }
            }),
        .value(
            "api.question_id", .jsonPath, default: SurveyAPI().questionID, into: \.run.api.questionID,
            "where each listed question holds its id, an integer or a string: a field (`qid`) or a path in the question "
                + "(`attributes.qid`)"),
        .value(
            "api.question_text", .jsonPath, default: SurveyAPI().questionText, into: \.run.api.questionText,
            "where each listed question holds its text: a field or a path in the question (`title.en`, `texts[0]`)"),
        .optional(
            "api.submit_body", .text, default: "the contract's `{\"id\": 1, \"answer\": \"red\"}`", into: \.run.api.submitBody,
            "the submit's JSON body, such as `{\"questionId\": ${question.id}, \"value\": ${answer}}`: `${respondent.id}` goes in as a number, `${question.id}` as the API gave it (a number or a string), `${answer}`, `${row.…}` and "
                + "`${session.…}` as JSON strings (escaped only, inside a string of the template), so that no value breaks the JSON"),
        .optional(
            "api.login", .call(defaultMethod: "POST"), into: \.run.api.login, digest: .always { $0.digestedCall(.login) },
            "the login: a step before the questions, once per respondent, that opens its session: 2xx is success; retried by `retry.login`; a respondent "
                + "whose login still fails is abandoned (`login_failed`). Reported as the step `login`"),
        .optional(
            "api.login_body", .text, into: \.run.api.loginBody,
            "the login's JSON body, a template like `submit_body` (`${row.…}` and `${respondent.id}` only)"),
        .custom(
            "api.capture", .entries, kind: "block of `name: $.json.path` or `name: header Name`", default: "none",
            "values taken from the login response into `${session.name}` (also `cookie Name`, `regex PATTERN`, `form FIELD`: "
                + "\"Journeys\"), for the paths, headers and bodies that follow; a "
                + "respondent whose login response lacks one is abandoned (`capture_not_found`). Captured values are secrets",
            digest: .always { plan in
                "[" + plan.run.api.captures.map { "\($0.name): \(plan.shownCapture($0, in: "api.capture"))" }.joined(separator: ", ") + "]"
            },
            applyDefault: { $0.run.api.captures = [] }, decode: { $0.readCaptures($1, into: &$2) }),
        .custom(
            "api.headers", .entries, kind: "block of `Name: value`", default: "none",
            "sent with every request. Values are always redacted in reports. Names are RFC 9110 tokens; values hold no control "
                + "character but a tab. `Host`, `Content-Length`, `Transfer-Encoding` and `Connection` frame the request: survey-bot "
                + "sets them, and they cannot be given",
            // Header values are never shown, so never digested: names only, in the plan's order.
            digest: .always { "[" + $0.run.api.headers.map(\.name).joined(separator: ", ") + "]" },
            applyDefault: { $0.run.api.headers = [] }, decode: { $0.readHeaders($1, into: &$2) }),
    ]

    /// The policy every step starts from; the default journey's submits also retry a 400, the
    /// app's failure. `step` is nil for a step of a declared journey (`journey`).
    static func defaultRetry(_ step: Step?) -> RetryPolicy {
        let conditions = (step == .submit ? ["400"] : []) + ["5xx", "timeout", "connection"]
        return RetryPolicy(
            attempts: 3, backoff: Backoff(.exponential, initial: .milliseconds(200), max: .seconds(5), multiplier: 2), jitter: .full,
            retryOn: (try? RetryConditions(names: conditions)) ?? RetryConditions())
    }

    private static let retry: [PlanKey] =
        Journey.defaultSteps.flatMap { retryKeys($0, base: "retry.\($0.name)", defaults: defaultRetry($0), doc: blockDoc($0)) } + [
            .custom(
                "retry.budget", kind: "percentage", default: "none (no budget)",
                "retries allowed as a share of calls: a retry happens only while `retries < budget · calls + budget_min`; refused "
                    + "retries are counted in the report",
                digest: .always { $0.run.retry.budget.map { "\($0.ratio)" } ?? "none" },
                applyDefault: { $0.run.retry.budget = nil }, decode: { $0.readBudget($1, into: &$2) }),
            .custom(
                "retry.budget_min", kind: "integer ≥ 0", default: "`\(RetryBudgetPolicy(ratio: 0).minimum)`",
                "retries always allowed, so that small runs can retry",
                digest: .always { $0.run.retry.budget.map { String($0.minimum) } ?? "none" },
                decode: { $0.readBudgetMinimum($1, into: &$2) }),
        ]

    private static func blockDoc(_ step: Step) -> String {
        switch step {
        case .login: "the login (`api.login`), before the questions"
        case .questions: "the app's retry mechanism for loading the questions"
        case .submit: "the user pressing \"retry\" on the \"Failure....\" banner"
        default: "the `\(step)` step"
        }
    }

    /// The keys of `step`'s retry policy, in the block at `base`: `retry.submit`, or a declared
    /// step's `journey.<name>.retry`.
    static func retryKeys(_ step: Step, base: String, defaults: RetryPolicy, doc: String) -> [PlanKey] {
        [
            .block(base, doc),
            .value(
                "\(base).attempts", .integer(in: 1...1000, "attempts"), default: defaults.attempts, into: \.run.retry[step].attempts,
                "total attempts, **the first one included**; `1` never retries"),
            .value(
                "\(base).backoff", .word, default: defaults.backoff.strategy, into: \.run.retry[step].backoff.strategy,
                "delay before the n-th retry: none → 0; constant → `initial`; linear → `initial·n`; exponential → "
                    + "`initial·multiplier^(n-1)`; always capped at `max`"),
            .value(
                "\(base).initial", .duration, default: defaults.backoff.initial, into: \.run.retry[step].backoff.initial,
                "the first retry's delay"),
            .value(
                "\(base).max", .positiveDuration("max"), default: defaults.backoff.max, into: \.run.retry[step].backoff.max,
                "the cap of every delay, including `Retry-After` (raised to `initial` when only `initial` is given above it)"),
            .value(
                "\(base).multiplier",
                ValueKind<Double>.number.checked(summary: "number ≥ 1") { $0 < 1 ? "multiplier must be at least 1, found \($0)" : nil },
                default: defaults.backoff.multiplier, into: \.run.retry[step].backoff.multiplier, "for exponential backoff"),
            .value(
                "\(base).jitter", .word, default: defaults.jitter, into: \.run.retry[step].jitter,
                "none → `v`; full → `U(0, v)`; equal → `v/2 + U(0, v/2)`; decorrelated → `min(max, U(initial, previous·3))`"),
            .custom(
                "\(base).on", kind: "list of conditions", default: "`\(defaults.retryOn)`",
                "what is retried: exact status codes (`400`, `429`), classes (`4xx`, `5xx`), `timeout`, `connection` (refused, reset "
                    + "— a TCP reset or an HTTP/2 stream reset — or closed), `tls` (handshake or certificate), `malformed`, or an error kind by name ("
                    + ErrorKind.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ") + ")",
                digest: .always { $0.run.retry[step].retryOn.description },
                applyDefault: { $0.run.retry[step].retryOn = defaults.retryOn },
                decode: { decoder, entry, plan in
                    if let conditions = decoder.readConditions(entry, "\(base).on") { plan.run.retry[step].retryOn = conditions }
                }),
        ]
    }

    private static let tls: [PlanKey] = [
        .value(
            "tls.verify", .boolean, default: TLSConfiguration().verify, into: \.run.client.tls.verify,
            "check the server's certificate chain, validity and host name; `false` (or `--insecure`) accepts any certificate and warns"),
        .optional(
            "tls.ca_file", .readablePath, default: "the system's certificates", into: \.tlsFiles.caFile,
            digest: .always { $0.tlsFiles.caFile.map($0.shownPath) ?? "none" },
            "a PEM file of certificates to trust instead of the system's (for a private CA); a relative path is the plan file's directory's"
        ),
        .optional(
            "tls.client_cert", .readablePath, into: \.tlsFiles.clientCertificate,
            digest: .always { $0.tlsFiles.clientCertificate.map($0.shownPath) ?? "none" },
            "the client's certificate chain, PEM, for servers that ask for one; needs `client_key`; beside the plan when relative"),
        .optional(
            "tls.client_key", .readablePath, into: \.tlsFiles.clientKey,
            digest: .always { $0.tlsFiles.clientKey.map($0.shownPath) ?? "none" },
            "the private key of `client_cert`, PEM; beside the plan when relative"),
        .optional(
            "tls.server_name", .hostName, default: "the target's host", into: \.run.client.tls.serverName,
            "the name sent as SNI and required in the certificate, when it differs from the target's host"),
        .value(
            "tls.min_version", .word, default: TLSConfiguration().minimumVersion, into: \.run.client.tls.minimumVersion,
            "the oldest TLS version accepted"),
    ]

    private static let engine: [PlanKey] = [
        .optional(
            "engine.threads", .integer(in: 1...256, "engine.threads"), default: "one per core", into: \.run.threads, digest: .leftOut,
            "event loops (threads) for respondents and connections, like wrk's `-t`; fewer than the cores leave cores to a server on the same machine"
        )
    ]

    private static let builtin: [PlanKey] = [
        .value(
            "builtin.questions", .builtinQuestions, default: ReferenceServerConfiguration().questions, into: \.builtin.questions,
            digest: .always {
                switch $0.builtin.questions {
                case .builtin(let count): String(count)
                case .file: "file"
                case .raw: "raw"
                }
            },
            "serve the first n built-in questions (ids 1…n)"),
        .custom(
            "builtin.questions_file", kind: "path", default: "none",
            "serve the questions of a JSON file instead (not with `questions`); a relative path is the plan file's directory's",
            digest: .always {
                switch $0.builtin.questions {
                case .builtin: "none"
                case .file(let path), .raw(let path): $0.shownPath(path)
                }
            },
            decode: { decoder, entry, plan in
                guard let written = decoder.read(entry, "builtin.questions_file", .text), case .scalar(let s) = entry.value else { return }
                let path = decoder.resolvedPath(written, of: s)
                let shown = s.isFromEnvironment ? s.source.display : written
                if let problem = FileAccess.readProblem(path) {
                    decoder.error(
                        "cannot read builtin.questions_file \(decoder.named(path, shown: shown, of: s)): \(problem)", at: s.location)
                    return
                }
                plan.builtin.questions = .file(path)
                plan.writtenPaths[path] = shown
            }),
        .value("builtin.fail_rate", .fraction, default: 0, into: \.builtin.faults.failRate, "submits answered `400`"),
        .value("builtin.error_rate", .fraction, default: 0, into: \.builtin.faults.errorRate, "requests answered `500`"),
        .value(
            "builtin.cold_start", .integer(atLeast: 0, "builtin.cold_start"), default: 0, into: \.builtin.faults.coldStart,
            "the first n requests are answered `503`"),
        .value("builtin.latency", .durationRange, default: .zero, into: \.builtin.faults.latency, "added before every answer"),
        .value("builtin.reset_rate", .fraction, default: 0, into: \.builtin.faults.resetRate, "connections reset instead of answered"),
        .value("builtin.malformed_rate", .fraction, default: 0, into: \.builtin.faults.malformedRate, "answers that are not HTTP"),
        .value(
            "builtin.slow_rate", .fraction, default: 0, into: \.builtin.faults.slowRate, "answers trickled out one byte per `trickle`"),
        .value(
            "builtin.trickle", .positiveDuration("builtin.trickle"), default: ServerFaults().trickleInterval,
            into: \.builtin.faults.trickleInterval, "pause between the bytes of a slow answer"),
        .value("builtin.hang_rate", .fraction, default: 0, into: \.builtin.faults.hangRate, "requests never answered"),
        .value(
            "builtin.goaway_rate", .fraction, default: 0, into: \.builtin.faults.goAwayRate, digested: .whenGiven,
            "requests met by the server going away: over HTTP/2, GOAWAY leaving that stream and later ones unprocessed (the "
                + "client sends them again on a new connection and counts a reconnect); over HTTP/1.1, the connection closed "
                + "unanswered. `/__stats` counts them as `goaway`"),
        .value(
            "builtin.http2", .boolean, default: false, into: \.builtin.http2, digested: .whenGiven,
            "speak HTTP/2 too: `h2` by ALPN with `builtin.tls`, cleartext h2 with prior knowledge on the same port; on by "
                + "itself when `http: 2`. Off otherwise, like nginx's `http2`, so that `http: auto` over `builtin.tls` rehearses "
                + "HTTP/1.1 unless asked"),
        .value(
            "builtin.window", .integer(in: 1...0x7FFF_FFFF, "builtin.window"), default: 65_535, into: \.builtin.faults.windowSize,
            digested: .whenGiven,
            "HTTP/2: each stream's receive window in bytes (SETTINGS_INITIAL_WINDOW_SIZE); with `window_delay`, a slow window"),
        .value(
            "builtin.window_delay", .duration, default: .zero, into: \.builtin.faults.windowDelay, digested: .whenGiven,
            "HTTP/2: how long the server waits before giving back the windows it read (WINDOW_UPDATE): a request body larger "
                + "than `window` goes out one window per delay"),
        .value(
            "builtin.tls", .builtinTLS, default: .off, into: \.builtin.tls, digest: .always { $0.builtin.tls == .off ? "false" : "true" },
            "serve https with a certificate made at start, which the run trusts (and only it): https rehearsed with no set-up"),
        .value(
            "builtin.api", .word, default: SurveyStyle.contract, into: \.builtin.api, digested: .whenGiven,
            "the API's shape: `contract` (the survey app's); `pages` (a session per respondent, `POST /sessions` giving the "
                + "first page of three questions with string ids `q1`…, `POST /sessions/{id}` with `{\"answers\": {…}}` the next, "
                + "until `\"questions\": [], \"done\": true`; a page posted again is `409`); `one_post` (`GET /survey` lists "
                + "`survey.pages[*].questions[*]`, `POST /responses` takes every answer at once); `jsonrpc` (`POST /rpc`, "
                + "LimeSurvey's RemoteControl: `get_session_key`, `list_questions`, `add_response` with answers keyed "
                + "`900001X1X<qid>`, `release_session_key`, each error a `{\"status\": \"…\"}` result inside a `200`); or "
                + "`html` (LimeSurvey's public pages: `GET /survey` opens a session, a cookie, and gives page 1 as an HTML "
                + "form with a CSRF token and a page key; `POST /survey` of the form gives the next page, the same page again "
                + "when a required question is empty, a \"thank you\" page after the last: `plans/html-pages.plan`). "
                + "`fail_rate` refuses the calls that store answers (in-band for `jsonrpc`); `/__stats` counts the responses "
                + "and answers stored (`stored`). Runs with a `journey` (`plans/builtin-pages.plan`)"),
        .value(
            "builtin.survey", .word, default: ServedSurvey.plain, into: \.builtin.survey, digested: .whenGiven,
            "the survey the `contract`, `pages`, `one_post` and `html` shapes serve: `plain` (`questions` of free text) or `typed` (eight "
                + "questions of four types — `single`, `multiple`, `number`, `text` — over three pages, some required, one shown "
                + "only on an earlier answer: \"The typed survey\" below); each answer is checked by its type and a wrong one refused "
                + "with a `400` naming why; `/__stats` counts the answers stored by question and value and how often each "
                + "question was shown"),
        .value(
            "builtin.login", .boolean, default: false, into: \.builtin.login,
            "hand out sessions at `POST /session` (any JSON body or none in, `{\"token\": \"…\"}` out, with a `session` cookie "
                + "and an `X-Session-Id` header) and answer `401` to survey calls without `Authorization: Bearer <token>` and "
                + "that session's cookie; `/__stats` counts requests per token. `DELETE /session` with both closes the session "
                + "(`204`; its token is refused from then on; `/__stats` counts `closed_sessions`). Pair it with `api.login: POST /session`, "
                + "`api.capture: token: $.token` and the cookies on (`plans/data-driven.plan`)"),
    ]

    private static let report: [PlanKey] = [
        .custom(
            "report.formats", kind: "list of " + ReportFormat.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", "),
            default: "`[json, markdown]`", "the files written; the JSON report, the source of truth, is written whatever the list says",
            digest: .leftOut,
            applyDefault: { $0.report.formats = [.json, .markdown] }, decode: { $0.readFormats($1, into: &$2) }),
        .value(
            "report.dir", ValueKind<String>.text.checked(summary: "path") { $0.isEmpty ? "'report.dir' cannot be empty" : nil },
            default: "reports", into: \.report.directory, digest: .leftOut,
            "where reports go (relative to the working directory); `--out DIR` overrides. Created if missing; a run that cannot "
                + "write there, finds less than 1 MiB free, or finds a directory, FIFO, socket or device where a `<name>-latest` "
                + "file goes, is refused before any traffic (exit 2)"),
        .value(
            "report.interval", .interval, default: .seconds(1), into: \.run.timelineInterval, digest: .leftOut,
            "the length of an interval of the report's `timeline` (the run over time); a run that outgrows 720 intervals merges "
                + "neighbours and doubles it. `off`: no timeline"),
        .value(
            "report.lag_limit", .positiveDuration("report.lag_limit"), default: .milliseconds(10), into: \.report.lagLimit,
            digest: .leftOut,
            "how late survey-bot itself may start respondents after their arrival's time (open model) and end think, pace and "
                + "retry waits, at p99, before every report format warns that the tool, not the server, fell behind (`lag` in the "
                + "JSON report)"),
        .value(
            "report.include_answers", .boolean, default: false, into: \.report.includeAnswers, digest: .leftOut,
            "write into the JSON report the answers respondents gave (`answers.given`: by question, each answer as the plan "
                + "shows it → how often; a data row's as `(from the data)`) and the plan's candidates (`plan.answers`)"),
    ]
}
