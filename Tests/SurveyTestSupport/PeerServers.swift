import Foundation
import SurveyEngine
import SurveyWire

/// The independent programs the real-server tests run, where they are installed.
enum Installed {
    /// `openssl` on the PATH.
    static let openssl = find("openssl")
    /// `nginx` on the PATH, or in /usr/sbin where Debian puts it (not on every user's PATH).
    static let nginx = find("nginx", also: ["/usr/sbin"])
    /// `strace`, which can hold a system call of a process for a while (`-e inject=…:delay_enter`).
    static let strace = find("strace")
    /// `setpriv`, which runs a command as another user (as `nobody`, for whom permissions hold).
    static let setpriv = find("setpriv")
    /// `nghttpd`, nghttp2's HTTP/2 server (Debian's nghttp2-server), in /usr/sbin.
    static let nghttpd = find("nghttpd", also: ["/usr/sbin"])
    /// `curl`, built with nghttp2 as Debian's is (`--http2`, `--http2-prior-knowledge`).
    static let curl = find("curl")
    /// `h2load`, nghttp2's HTTP/2 load generator (Debian's nghttp2-client).
    static let h2load = find("h2load")
    /// `python3`, whose standard library's `http.server` serves `PythonSurveyServer`.
    static let python3 = find("python3")

    static func find(_ name: String, also extra: [String] = []) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        return (path + extra).map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// Why a peer or its certificates could not be made, with what it said.
struct PeerFailure: Error, CustomStringConvertible {
    var description: String
}

/// `openssl s_server` on 127.0.0.1, on a port it picks itself and prints, answering every GET
/// with its status page (`-www`: HTTP/1.0, closed after the page), which names the connection's
/// protocol and cipher and the client's certificate. Killed by its PID when stopped.
final class OpenSSLServer {
    let port: Int
    private let process: ChildProcess
    /// The files written for it, when its certificates were made in memory.
    private let files: TemporaryDirectory?

    private init(port: Int, process: ChildProcess, files: TemporaryDirectory?) {
        self.port = port
        self.process = process
        self.files = files
    }

    /// Starts s_server with `identity`'s certificate and key, written to a directory of its own,
    /// and `options` (`-tls1`, …), and waits until it listens; with `clientCA`, it requires a
    /// client certificate issued by that CA.
    static func start(identity: TLSIdentity, requiringClientCertificatesFrom clientCA: TLSIdentity? = nil, options: [String] = [])
        async throws -> OpenSSLServer
    {
        let files = try TemporaryDirectory()
        let server = try files.write(identity, as: "server")
        var arguments = ["-cert", server.certificate, "-key", server.key]
        if let clientCA {
            // -Verify (capital V): a client without a certificate is refused, not let through.
            arguments += ["-Verify", "1", "-CAfile", try files.write("client-ca.pem", clientCA.certificatePEM)]
        }
        return try await start(arguments + options, files: files)
    }

    /// Starts s_server with the certificate and key in the PEM files `certificate` and `key` and
    /// `options`, and waits until it listens.
    static func start(certificate: String, key: String, options: [String] = []) async throws -> OpenSSLServer {
        try await start(["-cert", certificate, "-key", key] + options, files: nil)
    }

    private static func start(_ arguments: [String], files: TemporaryDirectory?) async throws -> OpenSSLServer {
        guard let openssl = Installed.openssl else { throw PeerFailure(description: "openssl is not installed") }
        let process = try ChildProcess(openssl, ["s_server", "-accept", "127.0.0.1:0", "-www"] + arguments)
        guard let port = await process.waitForPort(after: "ACCEPT 127.0.0.1:") else {
            process.stop()
            throw PeerFailure(description: "openssl s_server did not start listening:\n\(process.allOutput)")
        }
        return OpenSSLServer(port: port, process: process, files: files)
    }

    /// What s_server printed so far: its errors, one per failed connection.
    var log: String { process.allOutput }

    /// Waits until s_server has printed `text` (or has ended).
    func waitForLog(_ text: String) async -> Bool {
        await process.waitFor { $0.allOutput.contains(text) ? true : nil } ?? false
    }

    /// Sends it signal `number`: SIGSTOP, say, for a server that accepts and never answers.
    func signal(_ number: Int32) { process.signal(number) }

    func stop() { process.stop() }
}

/// nginx serving the survey API over TLS on 127.0.0.1: `GET /questions` from a file, `POST
/// /question/submit` answered 200, and `GET /close`, answered 200 on a connection nginx then
/// closes. One process (`master_process off`), so that killing its PID stops it for sure; its
/// configuration, logs and certificates made in memory live in a directory of its own.
final class NginxServer {
    /// The body of `GET /questions` unless the server is given other questions.
    static let questions = #"[{"id":1,"question":"Colour?"},{"id":2,"question":"Food?"}]"#

    /// A body of `GET /questions` with `count` questions, "Question 1?" and on.
    static func numberedQuestions(_ count: Int) -> String {
        "[" + (1...count).map { #"{"id":\#($0),"question":"Question \#($0)?"}"# }.joined(separator: ",") + "]"
    }

    let port: Int
    private let process: ChildProcess
    private let files: TemporaryDirectory

    private init(port: Int, process: ChildProcess, files: TemporaryDirectory) {
        self.port = port
        self.process = process
        self.files = files
    }

    /// Starts nginx with `identity`'s certificate and key and `protocols` (its `ssl_protocols`:
    /// 1.22's default leaves TLS 1.3 out, later versions' include it) and waits until it
    /// listens; with `clientCA`, `ssl_verify_client on` with that CA.
    /// With `http2`, nginx also speaks h2, which it picks by ALPN whenever a client offers it.
    static func start(
        identity: TLSIdentity, protocols: String = "TLSv1.2 TLSv1.3", requiringClientCertificatesFrom clientCA: TLSIdentity? = nil,
        questions: String = NginxServer.questions, http2: Bool = false
    ) async throws -> NginxServer {
        let files = try TemporaryDirectory()
        let server = try files.write(identity, as: "server")
        return try await start(
            in: files, tls: (server.certificate, server.key),
            clientCA: try clientCA.map { try files.write("client-ca.pem", $0.certificatePEM) }, protocols: protocols,
            questions: questions, http2: http2)
    }

    /// Starts nginx speaking HTTP/2 in cleartext (h2c, prior knowledge only: nginx does not
    /// upgrade from HTTP/1.1), and waits until it listens.
    static func startCleartextHTTP2(questions: String = NginxServer.questions) async throws -> NginxServer {
        try await start(in: try TemporaryDirectory(), tls: nil, clientCA: nil, protocols: "", questions: questions, http2: true)
    }

    /// Starts nginx with the certificate and key in the PEM files `certificate` and `key` and
    /// `protocols`, and waits until it listens.
    static func start(certificate: String, key: String, protocols: String = "TLSv1.2 TLSv1.3", questions: String = NginxServer.questions)
        async throws -> NginxServer
    {
        try await start(
            in: try TemporaryDirectory(), tls: (certificate, key), clientCA: nil, protocols: protocols, questions: questions, http2: false)
    }

    private static func start(
        in files: TemporaryDirectory, tls: (certificate: String, key: String)?, clientCA: String?, protocols: String, questions: String,
        http2: Bool
    ) async throws -> NginxServer {
        guard let nginx = Installed.nginx else { throw PeerFailure(description: "nginx is not installed") }
        let directory = files.path
        let clientVerification = clientCA.map { "ssl_verify_client on; ssl_client_certificate \($0);" } ?? ""
        let security =
            tls.map { "ssl_certificate \($0.certificate);\nssl_certificate_key \($0.key);\nssl_protocols \(protocols);" } ?? ""
        try files.write("questions.json", questions)
        // nginx cannot be told to pick a port: one that was free a moment ago, another if it was taken since.
        for _ in 0..<3 {
            guard let port = freeLoopbackPort() else { break }
            let configuration = try files.write(
                "nginx.conf",
                """
                daemon off;
                master_process off;
                worker_processes 1;
                pid \(directory)/nginx.pid;
                error_log \(directory)/error.log info;
                events { worker_connections 256; }
                http {
                    log_format requests '$request_method $uri $status $ssl_protocol $ssl_session_reused $ssl_client_verify $server_protocol $connection';
                    access_log \(directory)/access.log requests;
                    client_body_temp_path \(directory)/body;
                    proxy_temp_path \(directory)/proxy;
                    fastcgi_temp_path \(directory)/fastcgi;
                    uwsgi_temp_path \(directory)/uwsgi;
                    scgi_temp_path \(directory)/scgi;
                    server {
                        listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl")\(http2 ? " http2" : "");
                        \(security)
                        \(clientVerification)
                        location = /questions {
                            default_type application/json;
                            alias \(directory)/questions.json;
                        }
                        location = /question/submit {
                            if ($request_method != POST) { return 405; }
                            return 200 "";
                        }
                        location = /close {
                            keepalive_timeout 0;
                            return 200 "closed";
                        }
                    }
                }

                """)
            // -e: the log of start-up errors, before the configuration is read.
            let process = try ChildProcess(nginx, ["-e", "\(directory)/error.log", "-c", configuration, "-p", "\(directory)/"])
            if await process.waitFor(within: 60, { listensOnLoopback(pid: $0.pid, port: port) ? true : nil }) == true {
                return NginxServer(port: port, process: process, files: files)
            }
            process.stop()
            let errors = (try? String(contentsOfFile: "\(directory)/error.log", encoding: .utf8)) ?? ""
            guard errors.contains("Address already in use") else {
                throw PeerFailure(description: "nginx did not start listening:\n\(process.allOutput)\(errors)")
            }
        }
        throw PeerFailure(description: "nginx found no free port on 127.0.0.1")
    }

    /// The requests nginx logged so far, one line each: method, path, status, TLS protocol,
    /// whether the session was resumed ("r" or "."), and the client certificate's verdict.
    var requests: [String] {
        protocolLog.map { $0.split(separator: " ").dropLast(2).joined(separator: " ") }
    }

    /// The requests nginx logged so far as `requests` has them, then the request's protocol
    /// (`HTTP/2.0`) and nginx's serial number of its connection.
    var protocolLog: [String] {
        let log = (try? String(contentsOfFile: "\(files.path)/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").map(String.init)
    }

    /// Waits until nginx has logged `count` requests (it logs after it answers), or has ended.
    func waitForRequests(_ count: Int) async -> [String] {
        await process.waitFor { _ in requests.count >= count ? requests : nil } ?? requests
    }

    /// `waitForRequests`, as `protocolLog` has them.
    func waitForProtocolLog(_ count: Int) async -> [String] {
        await process.waitFor { _ in protocolLog.count >= count ? protocolLog : nil } ?? protocolLog
    }

    func stop() { process.stop() }
}
