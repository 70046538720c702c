import Foundation

/// `squid` in /usr/sbin (Debian's squid), the forward proxy no one here wrote.
/// `tinyproxy` in /usr/bin (Debian's tinyproxy), the small one.
extension Installed {
    static let squid = find("squid", also: ["/usr/sbin"])
    static let tinyproxy = find("tinyproxy", also: ["/usr/sbin"])
}

/// Credentials a test proxy asks of its clients (`Proxy-Authorization: Basic`).
struct ProxyCredentials {
    var user: String
    var password: String
}

/// An HTTP forward proxy no one here wrote — squid or tinyproxy — started by a test as a child
/// process on a free 127.0.0.1 port, with a configuration generated into a directory of its own:
/// listening on loopback alone, allowing loopback clients alone, with its own access log. Killed
/// by its PID when stopped.
final class ProxyServer {
    /// Which program it is.
    enum Program: String {
        case squid, tinyproxy
    }

    let program: Program
    let port: Int
    private let process: ChildProcess
    private let files: TemporaryDirectory

    private init(program: Program, port: Int, process: ChildProcess, files: TemporaryDirectory) {
        self.program = program
        self.port = port
        self.process = process
        self.files = files
    }

    /// Starts squid: `CONNECT` allowed to port 443 and to `connectPorts` only (squid's own
    /// default refuses the others with 403), with `credentials` checked by `basic_ncsa_auth`
    /// against a password file made by `openssl passwd -apr1`. Waits until it listens.
    static func squid(connectPorts: [Int], credentials: ProxyCredentials? = nil) async throws -> ProxyServer {
        guard let squid = Installed.squid else { throw PeerFailure(description: "squid is not installed") }
        let files = try TemporaryDirectory()
        // squid started as root works as the user `proxy`, which writes the logs here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: files.path)
        var authentication = ""
        var access = "http_access allow loopback"
        if let credentials {
            let hash = try await apr1Hash(credentials.password)
            let passwords = try files.write("passwords", "\(credentials.user):\(hash)\n")
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: passwords)
            authentication = """
                auth_param basic program /usr/lib/squid/basic_ncsa_auth \(passwords)
                auth_param basic children 1
                auth_param basic realm survey-bot tests
                acl users proxy_auth REQUIRED
                """
            access = "http_access allow loopback users"
        }
        return try await start(program: .squid, in: files) { port, directory in
            let configuration = try files.write(
                "squid.conf",
                """
                http_port 127.0.0.1:\(port)
                pid_filename \(directory)/squid.pid
                cache_log \(directory)/cache.log
                logformat lines %rm %ru %>Hs %rv
                access_log stdio:\(directory)/access.log lines
                coredump_dir \(directory)
                cache deny all
                pinger_enable off
                shutdown_lifetime 0 seconds
                acl loopback src 127.0.0.1/32
                acl tunnel_ports port 443 \(connectPorts.map(String.init).joined(separator: " "))
                acl CONNECT method CONNECT
                \(authentication)
                http_access deny CONNECT !tunnel_ports
                \(access)
                http_access deny all

                """)
            return try ChildProcess(squid, ["-N", "-f", configuration])
        }
    }

    /// Starts tinyproxy: `CONNECT` allowed to port 443 and to `connectPorts` (its `ConnectPort`),
    /// with `credentials` as its `BasicAuth`. Waits until it listens.
    static func tinyproxy(connectPorts: [Int], credentials: ProxyCredentials? = nil) async throws -> ProxyServer {
        guard let tinyproxy = Installed.tinyproxy else { throw PeerFailure(description: "tinyproxy is not installed") }
        let files = try TemporaryDirectory()
        return try await start(program: .tinyproxy, in: files) { port, directory in
            let configuration = try files.write(
                "tinyproxy.conf",
                """
                Port \(port)
                Listen 127.0.0.1
                Timeout 60
                LogFile "\(directory)/access.log"
                LogLevel Connect
                PidFile "\(directory)/tinyproxy.pid"
                MaxClients 64
                Allow 127.0.0.1
                ConnectPort 443
                \(connectPorts.map { "ConnectPort \($0)" }.joined(separator: "\n"))
                \(credentials.map { "BasicAuth \($0.user) \($0.password)" } ?? "")

                """)
            return try ChildProcess(tinyproxy, ["-d", "-c", configuration])
        }
    }

    /// Starts `program` by `launch` on a port that was free a moment ago, another if it was
    /// taken since, and waits until the process itself listens on it.
    private static func start(program: Program, in files: TemporaryDirectory, _ launch: (Int, String) throws -> ChildProcess)
        async throws -> ProxyServer
    {
        var said = ""
        for _ in 0..<3 {
            guard let port = freeLoopbackPort() else { break }
            let process = try launch(port, files.path)
            if await process.waitFor(within: 60, { listensOnLoopback(pid: $0.pid, port: port) ? true : nil }) == true {
                return ProxyServer(program: program, port: port, process: process, files: files)
            }
            process.stop()
            said = process.allOutput + ((try? String(contentsOfFile: "\(files.path)/cache.log", encoding: .utf8)) ?? "")
            guard said.contains("in use") else { break }
        }
        throw PeerFailure(description: "\(program) did not start listening:\n\(said)")
    }

    /// `openssl passwd -apr1 password`: the hash squid's `basic_ncsa_auth` checks.
    private static func apr1Hash(_ password: String) async throws -> String {
        guard let openssl = Installed.openssl else { throw PeerFailure(description: "openssl is not installed") }
        let process = try ChildProcess(openssl, ["passwd", "-apr1", password])
        guard await process.wait() == 0 else { throw PeerFailure(description: "openssl passwd failed: \(process.allOutput)") }
        return process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The requests the proxy logged so far, one line each, as `METHOD target`: `CONNECT
    /// 127.0.0.1:443`, `GET http://127.0.0.1:8080/questions`. squid logs a request when it
    /// ends (a tunnel when it closes), with its status; tinyproxy as it arrives.
    var requests: [String] {
        let log = (try? String(contentsOfFile: "\(files.path)/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line -> String? in
            switch program {
            case .squid:
                // "CONNECT 127.0.0.1:443 200 1.1"
                let fields = line.split(separator: " ")
                return fields.count >= 2 ? "\(fields[0]) \(fields[1])" : nil
            case .tinyproxy:
                // "CONNECT   Nov 28 20:19:16.963 [20347]: Request (file descriptor 5): CONNECT 127.0.0.1:8080 HTTP/1.1"
                guard let range = line.range(of: "): ", options: .backwards), line.contains("Request (file descriptor") else { return nil }
                let fields = line[range.upperBound...].split(separator: " ")
                return fields.count >= 2 ? "\(fields[0]) \(fields[1])" : nil
            }
        }
    }

    /// The statuses squid logged, in order (tinyproxy logs none).
    var statuses: [String] {
        let log = (try? String(contentsOfFile: "\(files.path)/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count >= 3 ? String(fields[2]) : nil
        }
    }

    /// Waits until the proxy has logged `count` requests (or has ended).
    func waitForRequests(_ count: Int) async -> [String] {
        await process.waitFor { _ in requests.count >= count ? requests : nil } ?? requests
    }

    func stop() { process.stop() }
}
