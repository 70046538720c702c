import SurveyWire
import Synchronization

/// A `Transport` that sends through another and keeps each attempt's request and response, in
/// the order they were sent: what `replay` compares with a recording.
///
/// Every request asks for the response's body and header fields, so that the replay can see
/// what a step that reads neither would have got; the respondent is then handed what it asked
/// for, as the inner transport would have given it — a body it did not want dropped (but a
/// failure's first bytes, which the client keeps anyway) — so that its walk is the ordinary one.
/// A body is kept up to `bodyLimit` bytes. An attempt is started in a task of its own, which
/// waits for the inner transport and then resumes the caller: a replay sends one respondent's
/// requests, one at a time, and pays nothing for it that a run would.
final class RecordingTransport: Transport {
    /// The most bytes of a response body kept: enough for any page or document a survey sends
    /// a browser; a longer one is compared by its content type alone.
    static let bodyLimit = 4 << 20

    /// Where the exchanges go: made by the caller, which reads them once the run is over.
    final class Kept: Sendable {
        private let list = Mutex<[Exchange]>([])

        /// Every attempt so far, in the order it ended: its request, and its response or why
        /// there is none. One respondent's attempts end in the order they were sent.
        var exchanges: [Exchange] { list.withLock { $0 } }

        fileprivate func append(_ exchange: Exchange) {
            list.withLock { $0.append(exchange) }
        }
    }

    private let inner: any Transport
    private let kept: Kept

    /// A transport that sends through `inner` and keeps what it sent and received in `kept`.
    init(_ inner: any Transport, keepingIn kept: Kept) {
        self.inner = inner
        self.kept = kept
    }

    func start(_ request: HTTPRequest, _ continuation: UnsafeContinuation<TransportResult, Never>) {
        var recorded = request
        recorded.collectBody = true
        recorded.collectHeaders = true
        let wanted = request.collectBody
        let inner = self.inner
        Task {
            var result = await inner.send(recorded)
            self.keep(request, result)
            if !wanted, case .success(var response) = result.received {
                response.body =
                    TransportResponse.keepsFailureBody(response.status)
                    ? Array(response.body.prefix(TransportResponse.failureBodyLimit)) : []
                result.received = .success(response)
            }
            continuation.resume(returning: result)
        }
    }

    func shutdown() async {
        await inner.shutdown()
    }

    func release(_ affinity: ConnectionAffinity) {
        inner.release(affinity)
    }

    private func keep(_ request: HTTPRequest, _ result: TransportResult) {
        var exchange = Self.exchange(request)
        switch result.received {
        case .success(let response):
            exchange.response = Exchange.Response(
                status: response.status, headers: response.headers, body: Array(response.body.prefix(Self.bodyLimit)),
                bodyTruncated: response.body.count > Self.bodyLimit || response.bodyBytes > response.body.count)
        case .failure(let failure):
            exchange.failure = failure.kind.rawValue
        }
        kept.append(exchange)
    }

    /// The request as an exchange without a response: its method, its target and header fields
    /// read back from its head (the `Cookie` line the jar adds included), and its body.
    static func exchange(_ request: HTTPRequest) -> Exchange {
        let template = request.template
        var headers: [HTTPHeader] = []
        // The head: the request line, then `Name: value` lines, each ending in CRLF.
        let lines = String(decoding: template.head, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: true)
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            if name.lowercased() == "host" { continue }
            headers.append(HTTPHeader(name: name, value: String(line[line.index(after: colon)...].drop { $0 == " " })))
        }
        var cookies: [String] = []
        if let own = template.cookie { cookies.append(String(decoding: own, as: UTF8.self)) }
        if let jar = request.cookies { cookies.append(String(decoding: jar, as: UTF8.self)) }
        if !cookies.isEmpty { headers.append(HTTPHeader(name: "Cookie", value: cookies.joined(separator: "; "))) }
        return Exchange(
            method: template.method, origin: nil, target: template.path, requestHeaders: headers, requestBody: request.body ?? [],
            response: nil, failure: nil)
    }
}
