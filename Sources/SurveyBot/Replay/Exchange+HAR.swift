import SurveyWire

extension Exchange {
    /// A recorded entry as the replay compares it: its request as the browser sent it, and its
    /// response with the body the recorder kept — none when it left it out, or it was binary.
    init(_ entry: HAREntry) {
        let url = entry.request.url
        let port = url.port ?? (url.scheme == "https" ? 443 : 80)
        let host = url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host
        let scheme = HTTPTarget.Scheme(rawValue: url.scheme)
        self.init(
            method: entry.request.method,
            origin: scheme.map { HTTPTarget(scheme: $0, host: host, port: port).description },
            target: url.target,
            requestHeaders: entry.request.headers.filter { !$0.name.hasPrefix(":") }.map { HTTPHeader(name: $0.name, value: $0.value) },
            requestBody: Array((entry.request.postData?.text ?? "").utf8),
            response: nil, failure: nil)
        let response = entry.response
        guard response.status > 0 else { return }
        var headers = response.headers.map { HTTPHeader(name: $0.name, value: $0.value) }
        // A recorder that names the body's type only in `content.mimeType` is taken at its word.
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }), !response.content.mimeType.isEmpty {
            headers.append(HTTPHeader(name: "Content-Type", value: response.content.mimeType))
        }
        self.response = Response(status: response.status, headers: headers, body: response.content.body.text.map { Array($0.utf8) })
    }
}
