import SurveyWire

/// The proxy the environment asks for, read as curl reads it (docs/proxy.md): `http_proxy` for
/// `http://` targets — lower case only, since a CGI program's environment holds the request's
/// `Proxy` header as `HTTP_PROXY` (httpoxy) —, `https_proxy` or `HTTPS_PROXY` for `https://`,
/// `all_proxy` or `ALL_PROXY` when the scheme's own is not set; lower case first, an empty
/// value as unset. `no_proxy` or `NO_PROXY` names the hosts that go around it (`NoProxyList`).
struct ProxyEnvironment: Sendable {
    /// The process's environment variables (`CommandContext.environment`).
    var variables: [String: String]

    /// The variable a target of `scheme` takes its proxy from, with its value; nil when none is set.
    func proxyVariable(for scheme: HTTPTarget.Scheme) -> (name: String, value: String)? {
        let own = scheme == .https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        for name in own + ["all_proxy", "ALL_PROXY"] {
            if let value = variables[name], !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The hosts that go around every proxy, the environment's or the plan's, as curl's
    /// `NO_PROXY` applies to its `-x` too; nil when neither variable is set.
    var noProxy: (name: String, list: NoProxyList)? {
        for name in ["no_proxy", "NO_PROXY"] {
            if let value = variables[name], !value.isEmpty { return (name, NoProxyList(value)) }
        }
        return nil
    }

    /// Why a target of `scheme` goes without the proxy its user may have meant: upper-case
    /// `HTTP_PROXY` set without `http_proxy`, which curl (and survey-bot) ignore.
    func ignoredVariable(for scheme: HTTPTarget.Scheme) -> String? {
        guard scheme == .http, variables["HTTP_PROXY"]?.isEmpty == false, variables["http_proxy"]?.isEmpty != false else {
            return nil
        }
        return "ignored, as curl ignores it (a CGI program's environment holds a request's Proxy header under that "
            + "name): set http_proxy to send http:// targets through a proxy"
    }
}
