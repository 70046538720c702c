/// The server's side of one HTTP/2 connection (RFC 9113) as a state machine of bytes, the
/// counterpart of `HTTP2ClientMachine`: what the connection reads goes in, what it must write comes
/// out, and the requests the client completed are reported as events, each already the
/// `HTTPServerRequest` the HTTP/1.1 server hands its handler. No sockets, no clock.
///
/// The connection's part (the client's preface, SETTINGS both ways, flow control, PING, stream
/// ids, header blocks across CONTINUATION frames) is its `HTTP2ConnectionMachine` in the
/// server's role; this one adds the requests (`+Requests`: each stream's fields and body, checked
/// and handed on whole), the responses (`+Responses`: sent within the client's windows and
/// `writeAllowance`, the windows it read given back at once or when told), RST_STREAM and GOAWAY
/// as they touch them.
///
/// A hostile client stays bounded: a header block is read up to `maxHeaderBlockBytes` and
/// decoded up to four times `maxHeaderListSize` (an HPACK bomb ends the connection), a header
/// list above `maxHeaderListSize` is answered 431 and a body above `maxBodyBytes` 413 on their
/// stream, streams above `maxConcurrentStreams` are refused, and frames that ask for work but
/// finish no response (PING, SETTINGS, WINDOW_UPDATE, RST_STREAM, PRIORITY, empty DATA and
/// CONTINUATION, unknown types) end the connection with ENHANCE_YOUR_CALM past
/// `maxControlFrames` between two responses.
struct HTTP2ServerMachine: Sendable {
    /// This end's SETTINGS and limits.
    struct Settings: Sendable, Equatable {
        /// Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
        var maxConcurrentStreams = 128
        /// Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE): a request body this
        /// large is read without waiting for a WINDOW_UPDATE.
        var initialWindowSize = 65_535
        /// The connection's receive window, raised from RFC 9113's 65,535 by a WINDOW_UPDATE.
        var connectionWindow = 1 << 20
        /// The header list a request may have (SETTINGS_MAX_HEADER_LIST_SIZE); a larger one is
        /// answered 431.
        var maxHeaderListSize = 8 * 1024
        /// The largest request body read; a larger one is answered 413.
        var maxBodyBytes = 64 * 1024
        /// Frames that finish no response taken between two responses before the client is told
        /// to calm down.
        var maxControlFrames = 10_000
        /// Whether the machine gives back the windows it reads as it reads them; when false, the
        /// connection does it with `returnWindows(into:)`, as slowly as it likes (a slow window).
        var returnsWindows = true
        /// Whether requests keep their `Authorization`, `Cookie` and other header fields.
        var credentials = false
        /// Whether requests keep their `:authority` (`HTTPServerRequest.host`).
        var keepsHost = false
        /// The loop the connection runs on, for the requests' `loopIndex`.
        var loopIndex = 0

        /// The largest header block read, CONTINUATIONs included, before HPACK decodes it.
        var maxHeaderBlockBytes: Int { max(maxHeaderListSize * 2, 16 * 1024) }
    }

    /// What the client's frames brought.
    enum Event: Sendable {
        /// A request, whole: headers and body (its stream is half-closed by the client).
        case request(stream: UInt32, HTTPServerRequest)
        /// A request that arrived on a stream above the last one a GOAWAY of this end kept: it is
        /// not answered, and the client sends it again elsewhere.
        case unanswered(stream: UInt32, HTTPServerRequest)
        /// A request answered by the machine itself for breaking a limit or the protocol
        /// (`431`, `413`, `400`): it never reaches the handler.
        case rejected(stream: UInt32, status: Int)
        /// The client reset a stream this end had not finished.
        case cancelled(stream: UInt32, error: HTTP2Error)
        /// The client is going away.
        case goAway(lastStream: UInt32, error: HTTP2Error)
    }

    /// A request's stream: its request as far as it came, its response as far as it went.
    struct Stream: HTTP2StreamState {
        var fields: [HPACK.Field] = []
        var body: [UInt8] = []
        var receiveWindow: FlowWindow
        /// The client has not ended its side yet.
        var receiving = true
        var expectedLength: Int?
        var head = false
        var sendWindow: FlowWindow
        /// Body bytes waiting for the windows, and whether the response ends with them.
        var outbound = HTTP2Outbound()
        /// The response's HEADERS went out.
        var responding = false
        /// END_STREAM went out (or will, once `outbound` is sent).
        var ended = false
        /// Answered by the machine (413, 431): the request never reaches the handler.
        var rejected = false
        /// Its request went to the handler.
        var dispatched = false

        init(receiveWindow: Int, sendWindow: Int) {
            self.receiveWindow = FlowWindow(receiveWindow)
            self.sendWindow = FlowWindow(sendWindow)
        }
    }

    let settings: Settings
    var connection: HTTP2ConnectionMachine<Stream>

    init(settings: Settings = Settings()) {
        self.settings = settings
        var local = HTTP2Settings()
        local.maxConcurrentStreams = settings.maxConcurrentStreams
        local.initialWindowSize = settings.initialWindowSize
        local.maxHeaderListSize = settings.maxHeaderListSize
        connection = HTTP2ConnectionMachine(
            role: .server, local: local, decoder: HPACKDecoder(maxTableSize: 4096, maxListSize: settings.maxHeaderListSize * 4),
            returnsWindows: settings.returnsWindows, maxHeaderBlockBytes: settings.maxHeaderBlockBytes,
            maxControlFrames: settings.maxControlFrames)
    }

    /// Streams open: opened by the client and not yet answered in full or reset.
    var openStreams: Int { connection.streams.count }

    /// The streams whose requests are still arriving: their headers waiting for CONTINUATION,
    /// or their body for more DATA (the client has not ended its side). Read by the server's
    /// sweep, which times them as HTTP/1.1 times a request.
    var receivingStreams: [UInt32] {
        var ids = connection.streams.compactMap { $0.value.receiving ? $0.key : nil }
        if let continuing = connection.continuingStream { ids.append(continuing) }
        return ids
    }

    /// Set once this end sent GOAWAY: streams above this one are not processed.
    var goAwayLastStream: UInt32? { connection.goAwayLastStream }

    /// Set once the client sent GOAWAY.
    var clientGoingAway: Bool { connection.peerGoingAway }

    /// Whether `stream` is open and not yet answered (its response may still go out).
    func awaitsResponse(_ stream: UInt32) -> Bool {
        guard let state = connection.streams[stream] else { return false }
        return !state.responding && !state.rejected
    }

    /// Whether `stream` is open: its response, or part of it, may still go out.
    func isOpen(_ stream: UInt32) -> Bool { connection.streams[stream] != nil }

    /// Whether bytes read wait to be given back (`returnWindows(into:)`).
    var hasUnreturnedWindow: Bool {
        connection.connectionReceive.unreturned > 0
            || connection.streams.contains { $0.value.receiveWindow.unreturned > 0 && $0.value.receiving }
    }

    /// Response bytes held by flow control or by `writeAllowance`, on every stream.
    var pendingBytes: Int { connection.streams.reduce(0) { $0 + $1.value.outbound.remaining } }

    /// Body bytes this end may still write before the connection has sent what it holds: a
    /// window of the connection's own, so that a client that opens wide windows and never reads
    /// cannot make the server copy every response it asked for into memory. The connection sets
    /// it before handing bytes over, and calls `resume(into:)` when its writes catch up.
    var writeAllowance: Int {
        get { connection.writeAllowance }
        set { connection.writeAllowance = newValue }
    }

    /// Sends what the windows and `writeAllowance` now allow of every stream's waiting body.
    mutating func resume(into output: inout [UInt8]) {
        connection.flushAll(into: &output)
    }

    /// The server's first frames: its SETTINGS (limit of streams, windows, header list size) and
    /// the connection's window raised.
    mutating func start(into output: inout [UInt8]) {
        var announced: [HTTP2Setting] = [.maxConcurrentStreams, .maxHeaderListSize]
        if settings.initialWindowSize != 65_535 { announced.append(.initialWindowSize) }
        connection.start(announcing: announced, connectionWindow: settings.connectionWindow, into: &output)
    }

    /// Takes the bytes the connection read; writes into `output` what they call for and returns
    /// the requests they completed. Throws a connection error: the connection then sends
    /// `goAway(for:)` and closes.
    mutating func receive(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws(HTTP2Failure) -> [Event] {
        connection.take(bytes)
        var events: [Event] = []
        while let inbound = try connection.next(into: &output) {
            switch inbound {
            case .headers(let stream, let block, let endStream, let opens):
                if !opens, connection.streams[stream]?.receiving != true {
                    // Trailers on a stream still open are fine; anything else on a closed one is not
                    // (§5.1), unless this end closed it first: a reset stream's frames are ignored.
                    if !endStream || connection.streams[stream] != nil {
                        throw HTTP2Failure(.streamClosed, "HEADERS on stream \(stream), which is closed")
                    }
                }
                try headerBlock(stream, connection.bytes(block), endStream: endStream, opens: opens, events: &events, output: &output)
            case .data(let stream, let data, let endStream):
                try receiveData(stream, connection.bytes(data), endStream: endStream, events: &events, output: &output)
            case .reset(let stream, let error), .streamError(let stream, let error):
                events.append(.cancelled(stream: stream, error: error))
            case .goAway(let lastStream, let error):
                events.append(.goAway(lastStream: lastStream, error: error))
            }
        }
        return events
    }

    /// The GOAWAY for a connection error: the streams processed so far are kept.
    func goAway(for failure: HTTP2Failure) -> HTTP2Frame {
        connection.goAway(for: failure)
    }

    /// Sends GOAWAY: streams above `lastStream` (the last processed when nil) are not answered,
    /// those at or below it still are. A later GOAWAY may only lower it. Returns the requests
    /// above it that were still arriving: read, never to be answered.
    mutating func goAway(lastStream: UInt32? = nil, error: HTTP2Error = .noError, into output: inout [UInt8]) -> [HTTPServerRequest] {
        let last = connection.sendGoAway(lastStream: lastStream ?? connection.lastProcessedStream, error: error, into: &output)
        var dropped: [HTTPServerRequest] = []
        for id in connection.streams.keys.sorted() where id > last {
            guard let state = connection.streams[id], !state.responding else { continue }
            if !state.dispatched && !state.rejected { dropped.append(request(id, state)) }
            connection.streams[id] = nil
        }
        return dropped
    }

    /// Resets a stream (RST_STREAM): its request is not answered.
    mutating func reset(_ id: UInt32, error: HTTP2Error, into output: inout [UInt8]) {
        connection.reset(id, error: error, into: &output)
    }
}
