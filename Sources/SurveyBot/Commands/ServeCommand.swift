import SurveyEngine
import SurveyWire

/// `survey-bot serve`: the reference survey server, with fault injection.
enum ServeCommand: Subcommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the reference survey API, with fault injection, for rehearsals and tests.",
        discussion: """
            GET /questions and POST /question/submit as in the survey app's API, plus GET /__stats \
            with the count of every request by endpoint and outcome. Faults are seeded: the same \
            seed gives the same faults to the n-th request of an endpoint. With --login, POST /session \
            with a JSON body hands out a session: {"token": "…"}, a `session` cookie and an \
            X-Session-Id header; the survey's calls then need `Authorization: Bearer <token>` and \
            that cookie (else 401), and /__stats counts them per token; DELETE /session with them \
            closes the session (204), whose token is refused from then on, and /__stats counts \
            closed_sessions. With --api, another survey platform's shape instead: pages (POST \
            /sessions gives the first page of three questions q1…, POST /sessions/{id} with \
            {"answers": {…}} the next, until "done"; DELETE /sessions/{id}), one_post (GET /survey, \
            POST /responses with every answer) or jsonrpc (POST /rpc: get_session_key, \
            list_questions, add_response with answers keyed 900001X1X<qid>, release_session_key, \
            errors inside a 200) or html (a public survey as a browser sees it: GET /survey opens a \
            session, a survey_session cookie, and gives page 1 as an HTML form with a CSRF token and a \
            page key, new for every page; POST /survey with the form's fields gives the next page, the \
            same page again with a new key when a required question is empty, and a "thank you" page \
            after the last; a missing session or a wrong CSRF token is 403, a stale page key or an \
            answer no one could give 400, each with its reason); /__stats then counts the responses \
            and answers stored ("stored"). \
            With --survey typed, the contract, pages, one_post and html serve a typed survey instead (choices, numbers, \
            required questions, a branch), refuse a wrong answer with a 400 naming why, and count \
            the answers stored by question and value and how often each question was shown. \
            With --http2, HTTP/2 too on the same port: h2 by ALPN over TLS, h2c with prior knowledge \
            in cleartext; each fault then hits its stream alone (a reset is RST_STREAM), and \
            --goaway-rate and a slow window (--window, --window-delay) rehearse the rest. \
            Prints the URL it listens on, then serves until SIGINT or SIGTERM, and exits 0.
            """,
        options: [
            OptionSpec("host", value: "address", help: "Address to bind.", default: "127.0.0.1"),
            OptionSpec(
                "allow-host", value: "name",
                help: "Answer requests for this Host name too (repeatable; * for any). Without it, only localhost, an IP address "
                    + "and the --host name are answered, others 421: a page using DNS rebinding cannot reach the server.",
                repeatable: true),
            OptionSpec("port", short: "p", value: "port", help: "Port to listen on; 0 picks a free one.", default: "8080"),
            OptionSpec("questions", value: "n", help: "Serve the first n built-in questions.", default: "10"),
            OptionSpec("questions-file", value: "path", help: "Serve the questions of a JSON file instead."),
            OptionSpec("questions-raw", value: "path", help: "Serve this file as the questions body, unchecked (for broken contracts)."),
            OptionSpec(
                "fail-rate", value: "p",
                help: "Share of the calls that store answers refused, like 20%: a 400 (a refusal inside a 200 with --api jsonrpc).",
                default: "0%"),
            OptionSpec("error-rate", value: "p", help: "Share of requests answered 500.", default: "0%"),
            OptionSpec("cold-start", value: "n", help: "Answer the first n requests 503.", default: "0"),
            OptionSpec("latency", value: "range", help: "Delay before each answer, like 5ms or 5ms..20ms.", default: "0"),
            OptionSpec("reset-rate", value: "p", help: "Share of requests whose connection is reset.", default: "0%"),
            OptionSpec("malformed-rate", value: "p", help: "Share of requests answered with bytes that are not HTTP.", default: "0%"),
            OptionSpec(
                "malformed-kind", value: "kind",
                help: "What a malformed answer breaks: status (the status line), headers, or binary (not HTTP at all).",
                default: "status"),
            OptionSpec("slow-rate", value: "p", help: "Share of answers trickled out byte by byte.", default: "0%"),
            OptionSpec("trickle", value: "duration", help: "Pause between the bytes of a slow answer.", default: "100ms"),
            OptionSpec("hang-rate", value: "p", help: "Share of requests never answered.", default: "0%"),
            OptionSpec("close-connections", help: "Close every connection after one response, without saying so."),
            OptionSpec(
                "goaway-rate", value: "p",
                help: "Share of requests met by the server going away: GOAWAY over HTTP/2 (the request and later ones "
                    + "unprocessed), the connection closed unanswered over HTTP/1.1.",
                default: "0%"),
            OptionSpec(
                "http2",
                help: "Speak HTTP/2 too: h2 by ALPN over TLS, and cleartext h2 with prior knowledge on the same port."),
            OptionSpec(
                "window", value: "bytes", help: "HTTP/2: each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE).",
                default: "65535"),
            OptionSpec(
                "window-delay", value: "duration",
                help: "HTTP/2: wait this long before giving back the windows read (a slow window with a small --window).",
                default: "0"),
            OptionSpec(
                "login",
                help: "Hand out sessions at POST /session and answer 401 to survey calls without their token and cookie."),
            OptionSpec(
                "api", value: "shape",
                help: "The API's shape: contract (the survey app's), pages (page-by-page sessions), one_post (one POST per "
                    + "survey), jsonrpc (LimeSurvey-like JSON-RPC with errors inside a 200) or html (LimeSurvey-like HTML "
                    + "pages: a form per page with a CSRF token and a page key, a session cookie).",
                default: "contract"),
            OptionSpec(
                "survey", value: "kind",
                help: "The survey served: plain (free-text questions) or typed (choices, numbers, "
                    + "required questions and a branch, each answer checked; /__stats counts answers by question and value).",
                default: "plain"),
            OptionSpec("tls-cert", value: "file", help: "Serve https with this PEM certificate chain (needs --tls-key)."),
            OptionSpec("tls-key", value: "file", help: "The PEM private key of --tls-cert."),
            OptionSpec(
                "tls-self-signed",
                help: "Serve https with a certificate made now for localhost, 127.0.0.1 and ::1; its PEM is printed to stderr."),
            OptionSpec("seed", value: "n", help: "Seed of the faults.", default: "0"),
            OptionSpec("threads", value: "n", help: "Event-loop threads.", default: "one per core"),
        ],
        exitCodes: [
            (.success, "stopped by SIGINT or SIGTERM"),
            (.validationFailure, "usage, or the server could not start (address in use, TLS files)"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        let configuration: ReferenceServerConfiguration
        let port: Int
        let threads: Int
        do throws(UsageError) {
            configuration = try Self.configuration(from: arguments)
            port = try option(arguments, "port", .integer(in: 0...65535, "--port")) ?? 8080
            threads = try option(arguments, "threads", .integer(in: 1...256, "--threads")) ?? EventLoopGroup.coreCount
        } catch {
            return spec.usageError(error.description, console: context.console)
        }
        let host = arguments.value("host") ?? "127.0.0.1"
        let signals = SignalWatcher()
        let group: EventLoopGroup
        do throws(EventLoopGroup.StartError) {
            group = try EventLoopGroup.start(threads: threads)
        } catch {
            signals.restoreDefaults()
            context.console.printError("Error: \(error.description)")
            return .validationFailure
        }
        let server: ReferenceServer
        do throws(ReferenceServer.StartError) {
            server = try ReferenceServer(configuration: configuration, host: host, port: port, group: group)
        } catch {
            group.shutdown()
            signals.restoreDefaults()
            context.console.printError("Error: \(error.description)")
            return .validationFailure
        }
        context.console.print("listening on \(server.scheme.rawValue)://\(server.address)")
        if let warning = WildcardBind.warning(server.address, option: "--host") { context.console.printError(warning) }
        if let certificate = server.certificatePEM {
            context.console.printError("the server's self-signed certificate (trust it with tls.ca_file):\n\(certificate)")
        }
        context.console.printError(describe(configuration, questions: server.questions.count))
        for await signal in signals.signals {
            context.console.printError("survey-bot serve: \(SignalWatcher.name(signal)), stopping")
            break
        }
        signals.restoreDefaults()
        let stats = server.stats()
        await server.shutdown()
        group.shutdown()
        context.console.printError(served(stats, api: configuration.api))
        return .success
    }

    /// The last line: what the server served, in its shape's words — the contract's question and
    /// submit requests, or the sessions, answer posts and responses stored of the others.
    static func served(_ stats: ReferenceServerStats, api: SurveyStyle) -> String {
        guard api != .contract else {
            return "served \(stats.requests("questions")) questions and \(stats.requests("submit")) submit requests"
        }
        return "served \(stats.requests("session")) session requests and \(stats.requests("submit")) answer posts; "
            + "stored \(stats.stored.responses) responses with \(stats.stored.answers) answers"
    }

    static func configuration(from arguments: ParsedArguments) throws(UsageError) -> ReferenceServerConfiguration {
        var configuration = ReferenceServerConfiguration()
        configuration.allowedHosts = Set(arguments.values("allow-host").map { $0.lowercased() })
        let sources = ["questions", "questions-file", "questions-raw"].filter { arguments.value($0) != nil }
        if sources.count > 1 { throw UsageError("give only one of --questions, --questions-file and --questions-raw") }
        if let raw = arguments.value("questions-raw") {
            configuration.questions = .raw(raw)
        } else if let file = arguments.value("questions-file") {
            configuration.questions = .file(file)
        } else if let count = try option(arguments, "questions", .integer(in: 1...10_000, "--questions")) {
            configuration.questions = .builtin(count: count)
        }
        var faults = ServerFaults()
        faults.failRate = try option(arguments, "fail-rate", .fraction) ?? 0
        faults.errorRate = try option(arguments, "error-rate", .fraction) ?? 0
        faults.coldStart = try option(arguments, "cold-start", .integer(atLeast: 0, "--cold-start")) ?? 0
        faults.latency = try option(arguments, "latency", .durationRange) ?? .zero
        faults.resetRate = try option(arguments, "reset-rate", .fraction) ?? 0
        faults.malformedRate = try option(arguments, "malformed-rate", .fraction) ?? 0
        faults.slowRate = try option(arguments, "slow-rate", .fraction) ?? 0
        faults.trickleInterval = try option(arguments, "trickle", .positiveDuration("--trickle")) ?? faults.trickleInterval
        faults.hangRate = try option(arguments, "hang-rate", .fraction) ?? 0
        if let kind = arguments.value("malformed-kind") {
            guard let parsed = ServerFaults.MalformedKind(rawValue: kind) else {
                throw UsageError("--malformed-kind \(kind): expected status, headers or binary")
            }
            faults.malformedKind = parsed
        }
        faults.closeAfterEachResponse = arguments.flag("close-connections")
        faults.goAwayRate = try option(arguments, "goaway-rate", .fraction) ?? 0
        faults.windowSize = try option(arguments, "window", .integer(in: 1...0x7FFF_FFFF, "--window")) ?? faults.windowSize
        faults.windowDelay = try option(arguments, "window-delay", .duration) ?? .zero
        configuration.http2 = arguments.flag("http2")
        configuration.login = arguments.flag("login")
        configuration.api = try option(arguments, "api", .word) ?? .contract
        if configuration.login, configuration.api != .contract {
            throw UsageError("--login goes with --api contract: the other shapes have sessions of their own")
        }
        configuration.survey = try option(arguments, "survey", .word) ?? .plain
        if configuration.survey == .typed {
            guard configuration.api != .jsonRPC else {
                throw UsageError("--survey typed goes with --api contract, pages, one_post or html")
            }
            guard sources.isEmpty else {
                throw UsageError("--\(sources[0]) goes with --survey plain: the typed survey has questions of its own")
            }
        }
        let sum =
            faults.errorRate + faults.resetRate + faults.malformedRate + faults.slowRate + faults.hangRate + faults.failRate
            + faults.goAwayRate
        if sum > 1.000_000_1 { throw UsageError("the fault rates add up to more than 100%") }
        configuration.faults = faults
        configuration.seed = try option(arguments, "seed", .seed) ?? 0
        switch (arguments.value("tls-cert"), arguments.value("tls-key"), arguments.flag("tls-self-signed")) {
        case (nil, nil, false): configuration.tls = .off
        case (nil, nil, true): configuration.tls = .selfSigned
        case (let certificate?, let key?, false): configuration.tls = .files(certificate: certificate, key: key)
        case (_, _, true): throw UsageError("give either --tls-self-signed or --tls-cert and --tls-key, not both")
        case (nil, _, false): throw UsageError("--tls-key needs --tls-cert")
        case (_, nil, false): throw UsageError("--tls-cert needs --tls-key")
        }
        return configuration
    }

    private static func option<Value>(_ arguments: ParsedArguments, _ name: String, _ kind: ValueKind<Value>) throws(UsageError) -> Value? {
        guard let text = arguments.value(name) else { return nil }
        switch kind.read(text) {
        case .success(let value): return value
        case .failure(let error): throw UsageError("--\(name) \(text): \(error.message)")
        }
    }

    private static func describe(_ configuration: ReferenceServerConfiguration, questions: Int) -> String {
        let faults = configuration.faults
        var parts: [String] = []
        func rate(_ name: String, _ value: Double) {
            if value > 0 { parts.append("\(name) \(Readable.percent(value))") }
        }
        rate("fail", faults.failRate)
        rate("5xx", faults.errorRate)
        if faults.coldStart > 0 { parts.append("cold start \(faults.coldStart)") }
        if !faults.latency.isZero { parts.append("latency \(faults.latency)") }
        rate("reset", faults.resetRate)
        rate("malformed", faults.malformedRate)
        rate("slow", faults.slowRate)
        rate("hang", faults.hangRate)
        rate("goaway", faults.goAwayRate)
        if faults.windowSize != ServerFaults().windowSize || faults.windowDelay != .zero {
            parts.append("window \(faults.windowSize) B every \(faults.windowDelay.compactDescription)")
        }
        let faultText = parts.isEmpty ? "no faults" : "faults: " + parts.joined(separator: ", ") + ", seed \(configuration.seed)"
        let login = configuration.login ? ", sessions at POST /session required" : ""
        let api = configuration.api == .contract ? "" : "the \(configuration.api.rawValue) API, "
        let typed = configuration.survey == .typed ? "typed " : ""
        let http2 = configuration.http2 ? "HTTP/2 and HTTP/1.1, " : ""
        return "\(http2)\(api)\(questions) \(typed)questions, \(faultText)\(login); GET /__stats for the counts; Ctrl-C stops"
    }
}
