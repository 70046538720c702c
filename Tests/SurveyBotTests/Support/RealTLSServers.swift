import Foundation

@testable import SurveyTestSupport

/// The independent programs the real-server tests run, where they are installed.
enum Installed {
    /// `openssl` on the PATH.
    static let openssl = find("openssl")
    /// `nginx` on the PATH, or in /usr/sbin where Debian puts it (not on every user's PATH).
    static let nginx = find("nginx", also: ["/usr/sbin"])

    private static func find(_ name: String, also extra: [String] = []) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return (path + extra).map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Why a certificate or a peer could not be made, with what the program said.
struct RealServerFailure: Error, CustomStringConvertible {
    var description: String
}

/// Certificates made by the `openssl` command, RSA 2048, in files of `directory`: a private CA
/// and what it issues, or self-signed ones.
struct OpenSSLCertificates {
    let directory: TemporaryDirectory

    /// Makes the CA (`ca.pem`, `ca.key`).
    func makeAuthority() async throws -> (certificate: String, key: String) {
        let certificate = "\(directory.path)/ca.pem"
        let key = "\(directory.path)/ca.key"
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=survey-bot test CA", "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        return (certificate, key)
    }

    /// A certificate `name`.pem (key `name`.key) for the IP addresses `addresses`, issued by the CA,
    /// valid from now for `days` — or, for a negative number, expired that many days ago.
    func issue(_ name: String, for addresses: [String], days: Int, by authority: (certificate: String, key: String))
        async throws -> (certificate: String, key: String)
    {
        let certificate = "\(directory.path)/\(name).pem"
        let key = "\(directory.path)/\(name).key"
        let request = "\(directory.path)/\(name).csr"
        let extensions = try directory.write(
            "\(name).ext", "subjectAltName=\(addresses.map { "IP:\($0)" }.joined(separator: ","))\nbasicConstraints=CA:FALSE\n")
        try await openssl(["req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=\(name)"])
        try await openssl([
            "x509", "-req", "-in", request, "-CA", authority.certificate, "-CAkey", authority.key,
            "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "\(days)", "-extfile", extensions, "-out", certificate,
        ])
        return (certificate, key)
    }

    /// A self-signed certificate `name`.pem (key `name`.key) for the IP addresses `addresses`.
    func selfSigned(_ name: String, for addresses: [String]) async throws -> (certificate: String, key: String) {
        let certificate = "\(directory.path)/\(name).pem"
        let key = "\(directory.path)/\(name).key"
        try await openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=\(name)",
            "-addext", "subjectAltName=\(addresses.map { "IP:\($0)" }.joined(separator: ","))",
        ])
        return (certificate, key)
    }

    private func openssl(_ arguments: [String]) async throws {
        guard let openssl = Installed.openssl else { throw RealServerFailure(description: "openssl is not installed") }
        let tool = try ChildProcess(openssl, arguments)
        let status = await tool.wait(seconds: 30)
        guard status == 0 else {
            throw RealServerFailure(description: "openssl \(arguments.joined(separator: " ")) exited \(status):\n\(tool.standardError)")
        }
    }
}

/// A server process of a test, killed by its PID (SIGKILL: children inherit the test process's
/// blocked signals, SIGTERM included) and reaped.
func stop(_ server: ChildProcess) async {
    server.signal(SIGKILL)
    _ = await server.wait(seconds: 10)
}

/// `openssl s_server -www` with `certificate`, `key` and `options` on a port of 127.0.0.1 it
/// picks and prints; returns once it listens.
func startOpenSSLServer(certificate: String, key: String, options: [String] = []) async throws -> (ChildProcess, port: Int) {
    guard let openssl = Installed.openssl else { throw RealServerFailure(description: "openssl is not installed") }
    let server = try ChildProcess(openssl, ["s_server", "-accept", "127.0.0.1:0", "-cert", certificate, "-key", key, "-www"] + options)
    // "ACCEPT 127.0.0.1:41589" and a newline once it listens.
    func port() -> Int? {
        let output = server.standardOutput
        guard let start = output.range(of: "ACCEPT 127.0.0.1:")?.upperBound, let end = output[start...].firstIndex(of: "\n") else {
            return nil
        }
        return Int(output[start..<end])
    }
    guard await eventually(within: 10, { port() != nil || !server.process.isRunning }), let port = port() else {
        await stop(server)
        throw RealServerFailure(description: "openssl s_server did not start listening:\n\(server.standardOutput)\(server.standardError)")
    }
    return (server, port)
}

/// nginx serving the survey API over TLS 1.2 and 1.3 on 127.0.0.1 — `GET /questions` from a file
/// of `questions` questions, `POST /question/submit` answered 200 — with `certificate` and `key`,
/// configuration and logs in `directory`; returns once it listens. One process
/// (`master_process off`), so that killing its PID stops it for sure.
func startNginx(in directory: TemporaryDirectory, certificate: String, key: String, questions: Int) async throws -> (
    ChildProcess, port: Int
) {
    guard let nginx = Installed.nginx else { throw RealServerFailure(description: "nginx is not installed") }
    let path = directory.path
    let list = (1...questions).map { #"{"id":\#($0),"question":"Question \#($0)?"}"# }.joined(separator: ",")
    try directory.write("questions.json", "[\(list)]")
    // nginx cannot be told to pick a port: one that was free a moment ago, another if it was taken since.
    for _ in 0..<3 {
        let port = try freeLoopbackPort()
        let configuration = try directory.write(
            "nginx.conf",
            """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/error.log info;
            events { worker_connections 256; }
            http {
                log_format requests '$request_method $uri $status';
                access_log \(path)/access.log requests;
                client_body_temp_path \(path)/body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    ssl_protocols TLSv1.2 TLSv1.3;
                    location = /questions {
                        default_type application/json;
                        alias \(path)/questions.json;
                    }
                    location = /question/submit {
                        if ($request_method != POST) { return 405; }
                        return 200 "";
                    }
                }
            }

            """)
        // -e: the log of start-up errors, before the configuration is read.
        let server = try ChildProcess(nginx, ["-e", "\(path)/error.log", "-c", configuration, "-p", "\(path)/"])
        let pid = server.process.processIdentifier
        if await eventually(within: 10, { listensOnLoopback(pid: pid, port: port) || !server.process.isRunning }),
            listensOnLoopback(pid: pid, port: port)
        {
            return (server, port)
        }
        await stop(server)
        let errors = (try? String(contentsOfFile: "\(path)/error.log", encoding: .utf8)) ?? ""
        guard errors.contains("Address already in use") else {
            throw RealServerFailure(description: "nginx did not start listening:\n\(server.standardError)\(errors)")
        }
    }
    throw RealServerFailure(description: "nginx found no free port on 127.0.0.1")
}

/// The requests nginx logged in `directory`, one line each: method, path, status.
func nginxRequests(in directory: TemporaryDirectory) -> [String] {
    let log = (try? String(contentsOfFile: "\(directory.path)/access.log", encoding: .utf8)) ?? ""
    return log.split(separator: "\n").map(String.init)
}

/// A port on 127.0.0.1 the kernel handed out a moment ago.
private func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard fd >= 0, bound else { throw RealServerFailure(description: "cannot bind 127.0.0.1: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether process `pid` itself holds a TCP socket listening on 127.0.0.1:`port`: the sockets of
/// its descriptors (/proc/PID/fd) matched by inode against the listening ones (/proc/PID/net/tcp).
/// A connect would also reach another program that took the port first.
private func listensOnLoopback(pid: Int32, port: Int) -> Bool {
    let descriptors = "/proc/\(pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: descriptors),
        let table = try? String(contentsOfFile: "/proc/\(pid)/net/tcp", encoding: .utf8)
    else { return false }
    let sockets = Set(
        names.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(descriptors)/\($0)") }
            .filter { $0.hasPrefix("socket:[") }.map { String($0.dropFirst("socket:[".count).dropLast()) })
    let hex = String(port, radix: 16, uppercase: true)
    let local = "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    return table.split(separator: "\n").dropFirst().contains { line in
        let fields = line.split(separator: " ")
        return fields.count > 9 && fields[1] == local && fields[3] == "0A" && sockets.contains(String(fields[9]))
    }
}
