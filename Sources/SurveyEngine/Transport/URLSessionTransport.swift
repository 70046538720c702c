import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The transport for `https://` targets: one shared URLSession with as many connections per
/// host as the run's concurrency, no cache, and a per-attempt deadline of our own (URLSession's
/// timeout on Linux starts before the request leaves its queue).
public final class URLSessionTransport: Transport {
    private let session: URLSession
    private let base: String
    private let timeout: Duration
    private let maxBodyBytes: Int

    /// A transport to `target` allowing `concurrency` connections (at least 6). Of
    /// `configuration` it honours `timeout` and `maxBodyBytes`, not `connectTimeout`.
    public init(target: HTTPTarget, concurrency: Int, configuration: HTTPClientConfiguration = .init()) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = max(6, concurrency)
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        // Our own deadline decides; URLSession's (which on Linux may start before the request
        // leaves its queue) is only a backstop a second later.
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.seconds + 1
        session = URLSession(configuration: sessionConfiguration)
        base = "\(target.scheme.rawValue)://\(target.isIPv6Literal ? "[\(target.host)]" : target.host):\(target.port)"
        timeout = configuration.timeout
        maxBodyBytes = configuration.maxBodyBytes
    }

    /// One attempt through URLSession, which may reuse a connection or open one. The body is
    /// checked against the limit only once it has arrived whole, and a failure always counts as
    /// sent, since URLSession does not tell.
    public func send(_ request: HTTPRequest) async -> TransportOutcome {
        let start = ContinuousClock.now
        guard let url = URL(string: base + request.template.path) else {
            return .failure(.malformedResponse, requestSent: false, serviceTime: .zero)
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.template.method
        urlRequest.timeoutInterval = timeout.seconds + 1
        urlRequest.setValue("survey-bot/\(SurveyEngine.version)", forHTTPHeaderField: "User-Agent")
        for header in request.template.headers {
            urlRequest.setValue(header.value, forHTTPHeaderField: header.name)
        }
        if let body = request.body { urlRequest.httpBody = Data(body) }
        let session = self.session
        let prepared = urlRequest
        let limit = maxBodyBytes
        let deadline = timeout
        let result = await withTaskGroup(of: Result<TransportResponse, TransportFailure>?.self) { group in
            group.addTask {
                do {
                    let (data, response) = try await session.data(for: prepared)
                    guard let http = response as? HTTPURLResponse, (100...599).contains(http.statusCode) else {
                        return .failure(TransportFailure(.malformedResponse, requestSent: true))
                    }
                    guard data.count <= limit else { return .failure(TransportFailure(.bodyTooLarge, requestSent: true)) }
                    return .success(
                        TransportResponse(
                            status: http.statusCode, body: request.collectBody ? [UInt8](data) : [],
                            retryAfter: http.value(forHTTPHeaderField: "Retry-After")))
                } catch {
                    return .failure(TransportFailure(Self.kind(of: error), requestSent: true))
                }
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return Task.isCancelled ? nil : .failure(TransportFailure(.timeout, requestSent: true))
            }
            var first: Result<TransportResponse, TransportFailure>?
            while first == nil, let next = await group.next() {
                first = next
            }
            group.cancelAll()
            return first ?? .failure(TransportFailure(.timeout, requestSent: true))
        }
        return TransportOutcome(result, serviceTime: ContinuousClock.now - start)
    }

    /// Cancels whatever is in flight and invalidates the session; no `send` may follow.
    public func shutdown() async {
        session.invalidateAndCancel()
    }

    static func kind(of error: any Error) -> ErrorKind {
        // libcurl's TLS failures often come back as an unknown code (-1) whose only clue is
        // the text: "SSL certificate problem: self-signed certificate".
        let text = "\(error)"
        if text.contains("SSL") || text.contains("certificate") || text.contains("TLS") { return .tls }
        guard let error = error as? URLError else { return .connectionReset }
        switch error.code {
        case .timedOut: return .timeout
        case .cannotConnectToHost, .notConnectedToInternet: return .connectionRefused
        case .cannotFindHost, .dnsLookupFailed: return .dns
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return .tls
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData: return .malformedResponse
        case .dataLengthExceedsMaximum: return .bodyTooLarge
        case .networkConnectionLost: return .connectionClosed
        default: return .connectionReset
        }
    }
}
