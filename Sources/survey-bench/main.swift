// survey-bench: drives survey-bot's event-loop HTTP client the way wrk drives a server, so that
// bench/http.sh can put the two side by side. Not a user-facing tool.
//
//   survey-bench URL [--concurrency 50] [--duration 5] [--threads N] [--method POST --body '{…}']
//                    [--ca-file PEM | --insecure]   (https: trust this CA, or verify nothing)
//                    [--max-body BYTES]             (a longer response body is response_too_large; 1048576)
//
// Prints one line: requests, errors (by kind), seconds, req/s.
import Foundation
import SurveyWire
import Synchronization

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("survey-bench: \(message)\n".utf8))
    exit(2)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var concurrency = 50
var seconds = 5.0
var threads = EventLoopGroup.coreCount
var url: String?
var method = "GET"
var body: [UInt8]?
var tls = TLSConfiguration()
var caFile: String?
var maxBody = HTTPClientConfiguration().maxBodyBytes
while let argument = arguments.first {
    arguments.removeFirst()
    func value() -> String {
        guard let next = arguments.first else { fail("\(argument) needs a value") }
        arguments.removeFirst()
        return next
    }
    switch argument {
    case "--concurrency", "-c":
        guard let number = Int(value()), number > 0 else { fail("--concurrency takes a positive number") }
        concurrency = number
    case "--duration", "-d":
        guard let number = Double(value()), number > 0 else { fail("--duration takes seconds") }
        seconds = number
    case "--method", "-m":
        method = value()
    case "--body", "-b":
        body = Array(value().utf8)
    case "--ca-file":
        // The engine reads no files: the CA's PEM text is handed over.
        let path = value()
        // A regular file only: reading a FIFO would wait for a writer.
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == .typeRegular, let contents = FileManager.default.contents(atPath: path) else {
            fail("--ca-file \(path): not a file that can be read")
        }
        tls.trustedCertificates = [String(decoding: contents, as: UTF8.self)]
        caFile = path
    case "--insecure":
        tls.verify = false
    case "--max-body":
        guard let number = Int(value()), number > 0 else { fail("--max-body takes a positive number of bytes") }
        maxBody = number
    case "--threads", "-t":
        guard let number = Int(value()), number > 0 else { fail("--threads takes a positive number") }
        threads = number
    default:
        guard url == nil, !argument.hasPrefix("-") else { fail("unexpected argument '\(argument)'") }
        url = argument
    }
}
guard let url else { fail("usage: survey-bench URL [--concurrency 50] [--duration 5] [--threads N]") }
guard case .success(let parsed) = HTTPTarget.parse(url) else { fail("'\(url)' is not an http:// or https:// URL") }
let target = HTTPTarget(scheme: parsed.scheme, host: parsed.host, port: parsed.port)
let path = parsed.basePath.isEmpty ? "/" : parsed.basePath

let group = EventLoopGroup(threads: threads)
let client: HTTPClient
do {
    client = try HTTPClient(
        target: target, group: group, configuration: HTTPClientConfiguration(timeout: .seconds(5), maxBodyBytes: maxBody, tls: tls))
} catch {
    let named = caFile.map { error.subject == "trusted certificate 1" ? error.naming(file: $0, as: "CA file") : error } ?? error
    fail(named.description)
}
let headers = body == nil ? [] : [HTTPHeader(name: "Content-Type", value: "application/json")]
let template: HTTPRequest.Template
do throws(HTTPSyntaxError) {
    template = try HTTPRequest.Template(method: method, path: path, target: target, headers: headers)
} catch {
    fail(error.description)
}
let requestBody = body
let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
let start = ContinuousClock.now

let (requests, errors) = await withTaskGroup(of: (Int, [ErrorKind: Int]).self) { tasks in
    for index in 0..<concurrency {
        tasks.addTask(executorPreference: group.loops[index % group.loops.count]) {
            var count = 0
            var errors: [ErrorKind: Int] = [:]
            let request = HTTPRequest(template, body: requestBody)
            while ContinuousClock.now < end {
                let result = await client.send(request)
                count += 1
                if case .failure(let failure) = result.received { errors[failure.kind, default: 0] += 1 }
            }
            return (count, errors)
        }
    }
    var total = 0
    var errors: [ErrorKind: Int] = [:]
    for await (count, kinds) in tasks {
        total += count
        errors.merge(kinds, uniquingKeysWith: +)
    }
    return (total, errors)
}
let elapsed = ContinuousClock.now - start
let elapsedSeconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
await client.shutdown()
group.shutdown()
let errorText = errors.isEmpty ? "0" : errors.sorted { $0.key < $1.key }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
print(String(format: "requests %d errors %@ seconds %.2f rps %.0f", requests, errorText, elapsedSeconds, Double(requests) / elapsedSeconds))
