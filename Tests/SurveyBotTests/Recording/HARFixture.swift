import SurveyJourney

@testable import SurveyBot

/// Hand-written recordings for the importer's tests: each entry a request and its response,
/// written as a HAR 1.2 file as Chrome writes one.
struct HARFixture {
    var entries: [String] = []
    /// The next entry's start, in seconds after the first.
    var clock = 0.0

    /// Adds an exchange that starts `after` seconds after the previous one ended and takes
    /// `time` seconds.
    mutating func add(
        _ method: String, _ url: String, type: String? = nil, headers: [(String, String)] = [], body: String? = nil,
        bodyType: String = "application/json", status: Int = 200, responseHeaders: [(String, String)] = [],
        responseType: String = "application/json", response: String? = nil, after: Double = 0, time: Double = 0.05
    ) {
        clock += after
        let started = 1_795_914_000 + clock
        clock += time
        let seconds = Int(started)
        let millis = min(Int(((started - Double(seconds)) * 1000).rounded()), 999)
        let date = "2026-11-29T01:\(format2((seconds - 1_795_914_000) / 60)):\(format2((seconds - 1_795_914_000) % 60)).\(format3(millis))Z"
        func fields(_ list: [(String, String)]) -> String {
            "[" + list.map { "{\"name\": \(JSONValue.quoted($0.0)), \"value\": \(JSONValue.quoted($0.1))}" }.joined(separator: ", ") + "]"
        }
        let post = body.map { ", \"postData\": {\"mimeType\": \(JSONValue.quoted(bodyType)), \"text\": \(JSONValue.quoted($0))}" } ?? ""
        let content = response.map { ", \"text\": \(JSONValue.quoted($0))" } ?? ""
        let kind = type.map { ", \"_resourceType\": \(JSONValue.quoted($0))" } ?? ""
        entries.append(
            """
            {"startedDateTime": "\(date)", "time": \(time * 1000)\(kind),
             "request": {"method": "\(method)", "url": \(JSONValue.quoted(url)), "httpVersion": "HTTP/1.1", "headers": \(fields(headers)),
               "queryString": [], "cookies": []\(post)},
             "response": {"status": \(status), "statusText": "", "headers": \(fields(responseHeaders)), "cookies": [],
               "content": {"size": 0, "mimeType": \(JSONValue.quoted(responseType))\(content)}, "redirectURL": ""}}
            """)
    }

    var text: String {
        "{\"log\": {\"version\": \"1.2\", \"creator\": {\"name\": \"test\", \"version\": \"1\"}, \"entries\": [\n"
            + entries.joined(separator: ",\n") + "\n]}}\n"
    }

    var file: HARFile {
        switch HARFile.parse(Array(text.utf8), path: "test.har") {
        case .success(let file): return file
        case .failure(let error): fatalError("a fixture that is no HAR: \(error)")
        }
    }

    /// The import of this recording (and of `again`), or a failure's description.
    func imported(again: HARFixture? = nil, thinkTimes: Bool = false) -> RecordingImport {
        switch RecordingImport.make(file, again: again?.file, options: .init(name: "test", source: "test.har", thinkTimes: thinkTimes)) {
        case .success(let result): return result
        case .failure(let failure): fatalError("nothing imported: \(failure)")
        }
    }
}

private func format2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
private func format3(_ value: Int) -> String { String(repeating: "0", count: 3 - String(value).count) + String(value) }
