/// The plan-override options shared by `run` and `validate`.
enum PlanOptions {
    static let options: [OptionSpec] = [
        OptionSpec("concurrency", value: "n", help: "At most this many respondents at once."),
        OptionSpec("respondents", value: "n", help: "Closed model: respondents in total (switches an open plan to closed)."),
        OptionSpec(
            "rate", value: "rate", help: "Open model: new respondents per second or minute, like 20/s (switches a closed plan to open)."),
        OptionSpec(
            "duration", value: "duration",
            help: "Hard cap on the run, like 2m: then no attempt starts, and one in flight gets the plan's grace at most."),
        OptionSpec("target", value: "url", help: "'builtin' or the survey API's base URL, like http://127.0.0.1:8080."),
        OptionSpec(
            "seed", value: "n",
            help: "Seed for answer choice, question order, think times, retry jitter, random data rows and builtin faults."),
        OptionSpec(
            "threads", value: "n", help: "Event loops (threads) of the run, like wrk's -t (engine.threads).", default: "one per core"),
        OptionSpec(
            "http", value: "version",
            help: "HTTP version: auto (h2 or http/1.1 by ALPN over TLS), 1.1, or 2 (h2 over TLS, h2c over http://).", default: "auto"),
        OptionSpec(
            "proxy", value: "url|none",
            help: "Send every connection through this HTTP proxy, [http://][user[:password]@]host[:port], or through none (the plan's "
                + "proxy key); NO_PROXY still applies. See docs/proxy.md.",
            default: "the plan's proxy, else the environment's (https_proxy, http_proxy, all_proxy)"),
        OptionSpec("set", value: "key.path=value", help: "Set any plan key, like retry.submit.attempts=4.", repeatable: true),
        OptionSpec(
            "insecure", help: "Accept any TLS certificate (tls.verify: false), with a warning: for a staging server's self-signed one."),
    ]

    /// Options that set one plan key each, by its path.
    private static let direct: [String: String] = [
        "concurrency": "concurrency", "respondents": "respondents", "rate": "rate", "duration": "duration", "target": "target",
        "seed": "seed", "threads": "engine.threads", "http": "http", "proxy": Plan.proxyKey,
    ]

    /// The overrides given on the command line, in the order given.
    static func overrides(from arguments: ParsedArguments) throws(UsageError) -> PlanOverrides {
        var overrides = PlanOverrides()
        for (name, value) in arguments.ordered {
            if name == "set" {
                do throws(PlanOverrides.OverrideError) {
                    try overrides.set(assignment: value)
                } catch {
                    throw UsageError(error.description)
                }
            } else if let key = direct[name] {
                overrides.set(key, to: value, option: "--\(name)")
            }
        }
        if arguments.flag("insecure") { overrides.set("tls.verify", to: "false", option: "--insecure", spelling: "--insecure") }
        return overrides
    }
}
