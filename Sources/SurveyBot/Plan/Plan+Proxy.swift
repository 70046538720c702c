import SurveyEngine
import SurveyWire

/// What a plan's `proxy` key (or `--proxy`) says: which proxy the run goes through, in place of
/// the environment's. Absent from a plan, the environment decides (`ProxyEnvironment`).
enum ProxySetting: Sendable, Hashable {
    /// Every connection through this proxy.
    case url(HTTPProxy)
    /// No proxy, whatever the environment says.
    case none
    /// Each respondent through its own, from this column of the data feed (`${row.proxy}`).
    case row(column: String)
}

/// Which proxy a run goes through, once the plan, the command line and the environment are
/// settled (`Plan.resolveProxy(environment:)`).
enum ProxyRoute: Sendable, Hashable {
    /// Straight to the target.
    case direct
    /// Every connection through `proxy`; `from` says who chose it: `--proxy`, the plan's
    /// `proxy`, or an environment variable's name.
    case proxy(HTTPProxy, from: String)
    /// Each respondent through its own, from the data feed's `column`.
    case perRespondent(column: String)
    /// A proxy was asked for, but `variable` (`no_proxy` or `NO_PROXY`) lists the target's host.
    case bypassed(variable: String)

    /// How output shows it, credentials as `***` (`HTTPProxy.description`); nil for `direct`.
    var shown: String? {
        switch self {
        case .direct: nil
        case .proxy(let proxy, let from): "\(proxy) (from \(from))"
        case .perRespondent(let column): "each respondent's own, from the data file's column '\(column)'"
        case .bypassed(let variable): "none: \(variable) lists the target's host"
        }
    }
}

extension Plan {
    /// The key that takes the plan's proxy.
    static let proxyKey = "proxy"

    /// How errors spell a proxy URL: never `[user[:password]@]` after `http://`, which the
    /// redaction of every message (`URLDisplay`) would take for credentials.
    static let proxyForm = "[http://]host[:port], with user:password@ before the host for credentials"

    /// Settles the run's proxy: `--proxy` or the plan's `proxy` if given, else the
    /// environment's for the target's scheme (never for `target: builtin`, the in-process server
    /// on loopback); then `NO_PROXY`, which applies however the proxy came, as curl's applies to
    /// its `-x`. Sets `run.client.proxy` and `run.proxyColumn` to match `proxyRoute`, adds a
    /// warning for an ignored `HTTP_PROXY`, and returns the errors of a variable that holds no
    /// proxy URL (each names the variable, never its credentials).
    mutating func resolveProxy(environment: [String: String]) -> [Diagnostic] {
        let variables = ProxyEnvironment(variables: environment)
        let scheme: HTTPTarget.Scheme
        let host: String
        switch target {
        case .builtin: (scheme, host) = (builtin.tls != .off ? .https : .http, "127.0.0.1")
        case .url(let url): (scheme, host) = (url.scheme, url.host)
        }
        var errors: [Diagnostic] = []
        var route = ProxyRoute.direct
        switch proxy {
        case .none?: break
        case .url(let proxy)?: route = .proxy(proxy, from: proxyOrigin)
        case .row(let column)?: route = .perRespondent(column: column)
        case nil:
            guard target != .builtin else { break }
            if let ignored = variables.ignoredVariable(for: scheme) {
                warnings.append(
                    Diagnostic(ignored, at: SourceLocation(origin: .option("HTTP_PROXY"), line: 1, column: 1), severity: .warning))
            }
            guard let (name, value) = variables.proxyVariable(for: scheme) else { break }
            switch HTTPProxy.parse(value) {
            case .success(let proxy): route = .proxy(proxy, from: name)
            case .failure(let error):
                errors.append(
                    Diagnostic(
                        "\(error.description); expected a proxy URL (\(Plan.proxyForm)): set it right or unset it, "
                            + "or give the plan 'proxy: none' or --proxy none",
                        at: SourceLocation(origin: .option("environment variable \(name)"), line: 1, column: 1)))
            }
        }
        if route != .direct, let (name, list) = variables.noProxy, list.matches(host: host) { route = .bypassed(variable: name) }
        proxyRoute = route
        run.client.proxy = nil
        run.proxyColumn = nil
        switch route {
        case .proxy(let proxy, _): run.client.proxy = proxy
        case .perRespondent(let column): run.proxyColumn = column
        case .direct, .bypassed: break
        }
        return errors
    }
}

extension PlanDecoder {
    /// `proxy: http://user:password@proxy.example:3128`, `proxy: none` or `proxy: ${row.proxy}`.
    /// An error never quotes the value: it may hold credentials.
    mutating func readProxy(_ entry: PlanEntry, into plan: inout Plan) {
        let expected = "a proxy URL (\(Plan.proxyForm)), 'none', or '${row.COLUMN}'"
        guard let s = scalar(entry.value, keyLocation: entry.keyLocation, path: Plan.proxyKey, expected: expected) else { return }
        if case .option(let spelling) = entry.keyLocation.origin {
            plan.proxyOrigin = spelling.hasPrefix("--proxy") ? "--proxy" : "--set proxy"
        }
        let text = s.text.trimmingCharacters(in: .whitespaces)
        if text == "none" {
            plan.proxy = ProxySetting.none
        } else if text.hasPrefix("${row."), text.hasSuffix("}") {
            plan.proxy = .row(column: String(text.dropFirst(6).dropLast()))
        } else {
            switch HTTPProxy.parse(text) {
            case .success(let proxy): plan.proxy = .url(proxy)
            case .failure(let error):
                let reason = s.isFromEnvironment ? s.source.redacting(error.description) : error.description
                self.error("'proxy': \(reason); expected \(expected)", at: s.location)
            }
        }
    }

    /// A proxy per respondent needs the data feed's column, and connections per respondent —
    /// which it implies: only a respondent's own connections can go through its own proxy.
    mutating func checkProxy(_ plan: inout Plan) {
        guard case .row(let column) = plan.proxy, let entry = seen(.proxy) else { return }
        guard let data = plan.run.data else {
            error(
                "'proxy: ${row.\(column)}' needs 'data': the CSV file whose column '\(column)' gives each respondent's proxy",
                at: entry.value.location)
            return
        }
        guard data.columns.contains(column) else {
            let hint = Suggestions.closest(to: column, in: data.columns).map { " (did you mean '${row.\($0)}'?)" } ?? ""
            error("'proxy: ${row.\(column)}': the data file has no column '\(column)'\(hint)", at: entry.value.location)
            return
        }
        if let connections = seen(.connections), plan.run.client.sharing != .perRespondent {
            error(
                "'connections: \(plan.run.client.sharing.rawValue)' cannot go with 'proxy: ${row.\(column)}': each respondent's own "
                    + "proxy needs connections of its own, which 'connections: per_respondent' gives (and a per-respondent proxy "
                    + "implies: leave 'connections' out)",
                at: connections.value.location)
            return
        }
        plan.run.client.sharing = .perRespondent
        plan.run.proxyColumn = column
    }
}
