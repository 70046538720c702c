import Foundation
import Testing

@testable import SurveyBot
@testable import SurveyEngine
@testable import SurveyTestSupport
@testable import SurveyWire

/// How a run is told its proxy: the environment as curl reads it, the plan's `proxy`, `--proxy`,
/// and `NO_PROXY` over all three.
@Suite struct PlanProxyTests {
    static let http = "target: http://api.test:8080\n"
    static let https = "target: https://api.test\n"

    /// The route of a plan `text` under `environment`, with its warnings.
    func route(_ text: String, _ environment: [String: String], overrides: PlanOverrides = PlanOverrides()) throws -> (
        ProxyRoute, [String]
    ) {
        let plan = try #require(expectPlan(text, environment: environment, overrides: overrides))
        switch plan.proxyRoute {
        case .proxy(let proxy, _): #expect(plan.run.client.proxy == proxy)
        default: #expect(plan.run.client.proxy == nil)
        }
        return (plan.proxyRoute, plan.warnings.map(\.description))
    }

    static func proxy(_ host: String, _ port: Int = 3128, from: String) -> ProxyRoute {
        .proxy(HTTPProxy(host: host, port: port), from: from)
    }

    // MARK: The environment

    @Test(arguments: [
        // http:// takes http_proxy, lower case only; https:// takes https_proxy or HTTPS_PROXY.
        (http, ["http_proxy": "http://p1:3128"], proxy("p1", from: "http_proxy")),
        (http, ["https_proxy": "http://p1:3128"], ProxyRoute.direct),
        (https, ["https_proxy": "p2:3128"], proxy("p2", from: "https_proxy")),
        (https, ["HTTPS_PROXY": "p2:3128"], proxy("p2", from: "HTTPS_PROXY")),
        (https, ["http_proxy": "p2:3128"], ProxyRoute.direct),
        // Lower case wins when both are set.
        (https, ["https_proxy": "lower:1", "HTTPS_PROXY": "upper:1"], proxy("lower", 1, from: "https_proxy")),
        // ALL_PROXY when the scheme's own is not set, for either scheme; lower case first.
        (http, ["ALL_PROXY": "all:1"], proxy("all", 1, from: "ALL_PROXY")),
        (https, ["ALL_PROXY": "all:1"], proxy("all", 1, from: "ALL_PROXY")),
        (https, ["all_proxy": "lower:1", "ALL_PROXY": "upper:1"], proxy("lower", 1, from: "all_proxy")),
        (https, ["https_proxy": "own:1", "all_proxy": "all:1"], proxy("own", 1, from: "https_proxy")),
        // An empty value is unset; the port is 1080 unless given.
        (https, ["https_proxy": "", "HTTPS_PROXY": "upper:1"], proxy("upper", 1, from: "HTTPS_PROXY")),
        (http, ["http_proxy": "http://p3"], proxy("p3", 1080, from: "http_proxy")),
        // NO_PROXY: the target's host, a domain of it, `*`, whatever port the target has.
        (http, ["http_proxy": "p:1", "NO_PROXY": "api.test"], ProxyRoute.bypassed(variable: "NO_PROXY")),
        (http, ["http_proxy": "p:1", "no_proxy": ".test"], ProxyRoute.bypassed(variable: "no_proxy")),
        (http, ["http_proxy": "p:1", "no_proxy": "*"], ProxyRoute.bypassed(variable: "no_proxy")),
        (http, ["http_proxy": "p:1", "no_proxy": "other.test", "NO_PROXY": "api.test"], proxy("p", 1, from: "http_proxy")),
        (http, ["http_proxy": "p:1", "NO_PROXY": "pi.test"], proxy("p", 1, from: "http_proxy")),
        ("target: http://[::1]:8080\n", ["http_proxy": "p:1", "NO_PROXY": "::1"], ProxyRoute.bypassed(variable: "NO_PROXY")),
        ("target: http://127.1.2.3:8080\n", ["http_proxy": "p:1", "NO_PROXY": "127.0.0.0/8"], ProxyRoute.bypassed(variable: "NO_PROXY")),
        ("target: http://127.1.2.3:8080\n", ["http_proxy": "p:1", "NO_PROXY": "127.1.3.0/24"], proxy("p", 1, from: "http_proxy")),
        // The builtin server is on loopback in this process: the environment's proxy is not its.
        ("target: builtin\n", ["http_proxy": "p:1", "https_proxy": "p:1", "ALL_PROXY": "p:1"], ProxyRoute.direct),
    ])
    func theEnvironment(_ text: String, _ environment: [String: String], _ expected: ProxyRoute) throws {
        #expect(try route(text, environment).0 == expected)
    }

    @Test func upperCaseHTTPProxyAloneIsIgnoredWithAWarning() throws {
        let (route, warnings) = try route(Self.http, ["HTTP_PROXY": "http://p:1"])
        #expect(route == .direct)
        #expect(warnings.count == 1)
        #expect(
            warnings.first?.contains("HTTP_PROXY: ignored, as curl ignores it") == true && warnings.first?.contains("http_proxy") == true)
        // Beside http_proxy, or for an https target, nothing to say.
        #expect(try self.route(Self.http, ["HTTP_PROXY": "http://p:1", "http_proxy": "q:1"]).1.isEmpty)
        #expect(try self.route(Self.https, ["HTTP_PROXY": "http://p:1"]).1.isEmpty)
    }

    @Test func aVariableThatIsNoProxyURLIsAnErrorNamingItNeverItsCredentials() {
        let errors = expectErrors(Self.https, environment: ["HTTPS_PROXY": "socks5://alice:hunter2@p:1"])
        #expect(errors.count == 1)
        let text = errors.map(\.description).joined()
        #expect(text.contains("environment variable HTTPS_PROXY") && text.contains("socks5"), "\(text)")
        #expect(!text.contains("hunter2") && !text.contains("alice"), "\(text)")
        // Unused, it is no error: the plan says none.
        #expect(expectPlan(Self.https + "proxy: none\n", environment: ["HTTPS_PROXY": "socks5://p:1"]) != nil)
    }

    // MARK: The plan and --proxy

    @Test func thePlansProxyWinsOverTheEnvironmentAndNoneTurnsItOff() throws {
        let plan = try #require(
            expectPlan(Self.https + "proxy: http://alice:hunter2@proxy.test:8080\n", environment: ["https_proxy": "env:1"]))
        #expect(plan.proxyRoute == .proxy(HTTPProxy(host: "proxy.test", port: 8080, user: "alice", password: "hunter2"), from: "the plan"))
        #expect(plan.run.client.proxy?.authorization == "Basic " + Data("alice:hunter2".utf8).base64EncodedString())
        #expect(plan.summary.contains("proxy http://***@proxy.test:8080 (from the plan)"), "\(plan.summary)")
        #expect(!plan.summary.contains("hunter2"))
        #expect(RunReport.PlanRecord(plan).proxy == "http://***@proxy.test:8080 (from the plan)")
        #expect(try route(Self.https + "proxy: none\n", ["https_proxy": "env:1"]).0 == .direct)
        #expect(RunReport.PlanRecord(try #require(expectPlan(Self.https))).proxy == nil)
    }

    @Test func theCommandLineWinsOverThePlanAndNoProxyOverBoth() throws {
        var overrides = PlanOverrides()
        overrides.set(Plan.proxyKey, to: "cli.test:9", option: "--proxy")
        #expect(try route(Self.https + "proxy: plan.test:1\n", [:], overrides: overrides).0 == Self.proxy("cli.test", 9, from: "--proxy"))
        var none = PlanOverrides()
        none.set(Plan.proxyKey, to: "none", option: "--proxy")
        #expect(try route(Self.https + "proxy: plan.test:1\n", ["https_proxy": "env:1"], overrides: none).0 == .direct)
        // NO_PROXY applies to the plan's and the command line's, as curl's to its -x.
        #expect(try route(Self.https + "proxy: plan.test:1\n", ["no_proxy": "api.test"]).0 == .bypassed(variable: "no_proxy"))
        #expect(try route(Self.https, ["NO_PROXY": ".test"], overrides: overrides).0 == .bypassed(variable: "NO_PROXY"))
        // A proxy for the builtin server, when the plan asks for one.
        #expect(try route("target: builtin\nproxy: p:1\n", [:]).0 == Self.proxy("p", 1, from: "the plan"))
    }

    @Test(arguments: [
        ("proxy: https://p.test:3128", "http://"),
        ("proxy: alice:hunter2@p.test:99999", "port"),
        ("proxy: http://alice:hunter2@p.test/path", "no path"),
        ("proxy: ''", "no host"),
    ])
    func aBadProxyIsAnErrorAtItsValueWithoutItsCredentials(_ line: String, _ message: String) throws {
        let diagnostics = expectErrors(Self.https + line + "\n")
        #expect(diagnostics.count == 1)
        let d = try #require(diagnostics.first)
        #expect(d.location.line == 2 && d.location.column == 8, "\(d)")
        #expect(d.message.contains(message), "\(d)")
        #expect(!d.description.contains("hunter2") && !d.description.contains("alice"), "\(d.description)")
    }

    @Test func aBadProxyOnTheCommandLineNamesTheOptionWithoutItsCredentials() async throws {
        let directory = try TemporaryDirectory()
        let plan = try directory.write("p.plan", Self.https)
        for arguments in [["--proxy", "alice:hunter2@p.test:0"], ["--set", "proxy=ftp://alice:hunter2@p.test"]] {
            let result = await runCommand(["validate", plan] + arguments)
            #expect(result.status == .validationFailure)
            #expect(result.err.contains(arguments[0]), "\(result.err)")
            #expect(!result.err.contains("hunter2") && !result.err.contains("alice"), "\(result.err)")
            #expect(!result.out.contains("hunter2"))
        }
        let valid = await runCommand(["validate", plan, "--proxy", "http://alice:hunter2@p.test:8"])
        #expect(valid.status == .success, "\(valid.err)")
        #expect(valid.out.contains("proxy http://***@p.test:8 (from --proxy)"), "\(valid.out)")
        #expect(!(valid.out + valid.err).contains("hunter2"))
        let help = await runCommand(["run", "--help"])
        #expect(help.out.contains("--proxy"), "\(help.out)")
    }

    // MARK: ${row.proxy}

    func rowPlan(_ text: String, csv: String) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        _ = try directory.write("people.csv", csv)
        return (directory, try directory.write("p.plan", Self.https + "data: people.csv\n" + text))
    }

    @Test func aProxyPerRowImpliesConnectionsPerRespondent() throws {
        let (directory, path) = try rowPlan("proxy: ${row.proxy}\n", csv: "member,proxy\nm1,http://a:b@p1:1\nm2,\n")
        _ = directory
        let plan = try PlanLoader(environment: ["https_proxy": "env:1"]).load(path: path).get()
        #expect(plan.run.client.sharing == .perRespondent)
        #expect(plan.run.proxyColumn == "proxy")
        #expect(plan.run.client.proxy == nil)
        #expect(plan.proxyRoute == .perRespondent(column: "proxy"))
        #expect(plan.summary.contains("a connection per respondent"))
        // Said, explicitly, it is the same.
        let (other, explicit) = try rowPlan("proxy: ${row.egress}\nconnections: per_respondent\n", csv: "egress\np:1\n")
        _ = other
        #expect(try PlanLoader(environment: [:]).load(path: explicit).get().run.proxyColumn == "egress")
    }

    @Test(arguments: ["per_request", "shared"])
    func aProxyPerRowWithConnectionsNotPerRespondentIsAnError(_ connections: String) throws {
        let (directory, path) = try rowPlan("connections: \(connections)\nproxy: ${row.proxy}\n", csv: "proxy\np:1\n")
        _ = directory
        let errors = try #require(PlanLoader(environment: [:]).load(path: path).failure).diagnostics
        #expect(errors.count == 1)
        #expect(errors.first?.location.line == 3 && errors.first?.location.column == 14, "\(errors)")
        #expect(errors.first?.message.contains("needs connections of its own") == true, "\(errors)")
    }

    @Test func aProxyPerRowNeedsTheDataAndItsColumn() throws {
        expectSingleError(Self.https + "proxy: ${row.proxy}\n", line: 2, column: 8, contains: "needs 'data'")
        let (directory, path) = try rowPlan("proxy: ${row.proxi}\n", csv: "proxy\np:1\n")
        _ = directory
        let errors = try #require(PlanLoader(environment: [:]).load(path: path).failure).diagnostics
        #expect(errors.count == 1 && errors.first?.message.contains("did you mean '${row.proxy}'") == true, "\(errors)")
    }

    @Test func aRowWhoseProxyIsNoURLIsAnErrorAtThatValue() throws {
        let csv = "member,proxy\nm1,http://u:p@ok.test:1\nm2,\"quoted\",\n" + "m3,socks5://alice:hunter2@bad.test:1\n"
        // Row 2 has three fields: the reader says so first. Make it well formed.
        let (directory, path) = try rowPlan("proxy: ${row.proxy}\n", csv: csv.replacingOccurrences(of: "\"quoted\",", with: "\"quo,ted\""))
        _ = directory
        let errors = try #require(PlanLoader(environment: [:]).load(path: path).failure).diagnostics
        #expect(errors.count == 2, "\(errors)")
        // `quo,ted` is no URL: the quoted field starts at column 4 of line 3.
        #expect(errors.map(\.location.line) == [3, 4] && errors.map(\.location.column) == [4, 4], "\(errors)")
        #expect(errors.first?.location.description.hasSuffix("people.csv:3:4") == true, "\(errors)")
        let text = errors.map(\.description).joined(separator: "\n")
        #expect(text.contains("row 3: column 'proxy' holds no proxy URL"), "\(text)")
        #expect(!text.contains("hunter2") && !text.contains("alice") && !text.contains("quo"), "\(text)")
    }
}
