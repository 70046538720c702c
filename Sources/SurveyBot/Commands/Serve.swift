/// `survey-bot serve`: the reference survey server, with fault injection.
enum ServeCommand: Subcommand {
    static let spec = CommandSpec(
        name: "serve",
        abstract: "Serve the reference survey API, with fault injection, for rehearsals and tests.",
        discussion: """
            GET /questions and POST /question/submit as in the survey app's API, plus GET /__stats \
            with the count of every request by endpoint and outcome. Faults are seeded: the same \
            seed gives the same faults to the n-th request of an endpoint.
            """,
        options: [
            OptionSpec("host", value: "address", help: "Address to bind.", default: "127.0.0.1"),
            OptionSpec("port", short: "p", value: "port", help: "Port to listen on; 0 picks a free one.", default: "8080"),
            OptionSpec("questions", value: "n", help: "Serve the first n built-in questions.", default: "10"),
            OptionSpec("questions-file", value: "path", help: "Serve the questions of a JSON file instead."),
            OptionSpec("fail-rate", value: "p", help: "Share of submits answered 400, like 20%.", default: "0%"),
            OptionSpec("error-rate", value: "p", help: "Share of requests answered 500.", default: "0%"),
            OptionSpec("cold-start", value: "n", help: "Answer the first n requests 503.", default: "0"),
            OptionSpec("latency", value: "range", help: "Delay before each answer, like 5ms or 5ms..20ms.", default: "0"),
            OptionSpec("reset-rate", value: "p", help: "Share of requests whose connection is reset.", default: "0%"),
            OptionSpec("malformed-rate", value: "p", help: "Share of requests answered with bytes that are not HTTP.", default: "0%"),
            OptionSpec("slow-rate", value: "p", help: "Share of answers trickled out byte by byte.", default: "0%"),
            OptionSpec("trickle", value: "duration", help: "Pause between the bytes of a slow answer.", default: "100ms"),
            OptionSpec("hang-rate", value: "p", help: "Share of requests never answered.", default: "0%"),
            OptionSpec("seed", value: "n", help: "Seed of the faults.", default: "0"),
            OptionSpec("threads", value: "n", help: "Event-loop threads.", default: "one per core"),
        ])

    static func run(_ arguments: ParsedArguments, context: CommandContext) async -> ExitCode {
        context.console.printError("Error: 'survey-bot serve' is not built yet: the reference server lands with issue #3.")
        return .validationFailure
    }
}
