import Foundation

/// The survey API served by a few lines of Python's standard library (`http.server`'s
/// `ThreadingHTTPServer`, HTTP/1.1 with keep-alive) on 127.0.0.1: a server no one here wrote the
/// HTTP of, for end-to-end tests that reconcile a report with a count that is not survey-bot's
/// own. It logs every request it reads, one JSON line each, *before* it answers, so that once a
/// run has its answers their lines are in the log: no wait, no margin.
///
/// It answers `GET /questions` with numbered questions, `POST /question/submit` with an empty
/// 200, and `POST /session` (`{"member": …}`) with a token (`{"token": "tok-N"}`) that later
/// calls carry as `Authorization: Bearer tok-N`, which it logs as the member it was issued to
/// (a token it never issued is answered 401, any other path 404).
/// A request names its respondent in `X-Respondent`; the server numbers each respondent's
/// attempts at each call (a step, and the question of a submit or the member of a login), and
/// answers by `faults`: the outcomes of a call's first attempts, 200 after them. A fault is a
/// status (`"500"`, `"503"`) or `"close"`: a 200's head and part of its body, then the
/// connection closed — a close after part of a response, never one a client could take for an
/// idle connection's. With `hold`, the first attempt of a call it names (`submit:3`, or one
/// respondent's, `submit:3@0`) is logged (`held`) and then held until the test releases it (or
/// for a minute at most). The server exits by itself after five minutes, and is killed by
/// its PID when stopped.
final class PythonSurveyServer {
    /// One request as the server logged it.
    struct Request: Decodable, Equatable, Sendable {
        /// `login`, `questions` or `submit`; the path for any other.
        var step: String
        var method: String
        /// `X-Respondent`, as sent.
        var respondent: String?
        /// This call's attempt, from 1.
        var attempt: Int
        /// The status sent, or `close`.
        var outcome: String
        /// A login's member, from its body; another call's, from the token it carries (nil when
        /// it carries none, "?" for a token the server never issued).
        var member: String?
        /// A submit's question id and answer, from its body.
        var question: Int?
        var answer: String?
        /// Whether this attempt was held until the test released it.
        var held: Bool?

        /// The call it belongs to: the same for each attempt of a call, different between calls.
        var call: String { "\(respondent ?? "-") \(step) \(question.map(String.init) ?? "") \(step == "login" ? member ?? "" : "")" }
    }

    /// Where a call is faulted: `submit`, `submit:3` (question 3), `login:m-ann` (that member's
    /// login), and any of them for one respondent, `submit:3@0`; the most specific applies.
    typealias Faults = [String: [String]]

    static let script = #"""
        import json, os, sys, threading, time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        log_path, release_path, config = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
        questions = json.dumps(
            [{"id": n, "question": f"Question {n}?"} for n in range(1, config["questions"] + 1)]).encode()
        faults, hold = config["faults"], config.get("hold")
        steps = {"/session": "login", "/questions": "questions", "/question/submit": "submit"}
        lock = threading.Lock()
        attempts, tokens = {}, {}
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        threading.Timer(300, lambda: os._exit(0)).start()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.serve()

            def do_POST(self):
                self.serve()

            def serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                step = steps.get(self.path.split("?")[0], self.path)
                respondent = self.headers.get("X-Respondent")
                try:
                    fields = json.loads(body) if body else {}
                except ValueError:
                    fields = {}
                entry = {"step": step, "method": self.command, "respondent": respondent}
                bearer = self.headers.get("Authorization", "")
                if step == "login":
                    entry["member"] = subject = fields.get("member")
                elif step == "submit":
                    entry["question"] = subject = fields.get("id")
                    entry["answer"] = fields.get("answer")
                else:
                    subject = None
                if step != "login" and bearer.startswith("Bearer "):
                    entry["member"] = tokens.get(bearer[7:], "?")
                names = [step] if subject is None else [f"{step}:{subject}", step]
                planned = next(
                    (faults[k] for k in [f"{n}@{respondent}" for n in names] + names if k in faults), [])
                token = None
                with lock:
                    key = (respondent, step, subject)
                    attempt = attempts[key] = attempts.get(key, 0) + 1
                    outcome = planned[attempt - 1] if attempt <= len(planned) else "200"
                    if step not in steps.values() or (step != "login" and entry.get("member") == "?"):
                        outcome = "404" if step not in steps.values() else "401"
                    if step == "login" and outcome == "200":
                        token = f"tok-{len(tokens)}"
                        tokens[token] = subject
                held = attempt == 1 and hold in (f"{step}:{subject}", f"{step}:{subject}@{respondent}")
                entry.update(attempt=attempt, outcome=outcome, **({"held": True} if held else {}))
                # One write a line, before the answer leaves.
                os.write(log, (json.dumps(entry) + "\n").encode())
                if held:
                    deadline = time.monotonic() + 60
                    while not os.path.exists(release_path) and time.monotonic() < deadline:
                        time.sleep(0.01)
                if outcome == "close":
                    self.wfile.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n{\"cut")
                    self.close_connection = True
                    return
                status = int(outcome)
                if status != 200:
                    payload = b'{"error":"fault"}'
                elif step == "questions":
                    payload = questions
                elif step == "login":
                    payload = json.dumps({"token": token}).encode()
                else:
                    payload = b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        class Server(ThreadingHTTPServer):
            request_queue_size = 128

        server = Server(("127.0.0.1", 0), Handler)
        print(f"listening on {server.server_address[1]}", flush=True)
        server.serve_forever()
        """#

    let port: Int
    private let process: ChildProcess
    private let files: TemporaryDirectory

    private init(port: Int, process: ChildProcess, files: TemporaryDirectory) {
        self.port = port
        self.process = process
        self.files = files
    }

    /// Starts the server with `questions` questions, `faults`, and the calls to hold (`submit:3`:
    /// every respondent's submit of question 3), and waits until it listens.
    static func start(questions: Int, faults: Faults = [:], hold: String? = nil) async throws -> PythonSurveyServer {
        guard let python = Installed.python3 else { throw PeerFailure(description: "python3 is not installed") }
        let files = try TemporaryDirectory()
        let script = try files.write("server.py", Self.script)
        var configuration: [String: Any] = ["questions": questions, "faults": faults]
        if let hold { configuration["hold"] = hold }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: configuration, options: [.sortedKeys]), as: UTF8.self)
        let process = try ChildProcess(python, [script, files.missing("requests.log"), files.missing("release"), json])
        guard let port = await process.waitForPort(after: "listening on ") else {
            process.stop()
            throw PeerFailure(description: "the Python server did not start listening:\n\(process.allOutput)")
        }
        return PythonSurveyServer(port: port, process: process, files: files)
    }

    /// Every request logged so far, in the order the server read them.
    func requests() throws -> [Request] {
        let path = files.missing("requests.log")
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let decoder = JSONDecoder()
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try decoder.decode(Request.self, from: Data($0.utf8))
        }
    }

    /// Waits until the requests logged so far are `enough`, at most `seconds`.
    func waitForRequests(within seconds: Double = 60, until enough: ([Request]) -> Bool) async -> Bool {
        await process.waitFor(within: seconds) { _ in (try? requests()).map(enough) == true ? true : nil } ?? false
    }

    /// Lets the held attempts be answered.
    func release() throws {
        try files.write("release", "")
    }

    /// What the server wrote to its standard output and error: its port, and Python's errors.
    var output: String { process.allOutput }

    func stop() { process.stop() }
}
