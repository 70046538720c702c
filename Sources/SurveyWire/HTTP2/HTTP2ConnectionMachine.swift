/// Which end of an HTTP/2 connection a machine plays: the client opens odd streams and sends
/// the preface; the server opens none (push is off) and reads it.
enum HTTP2Role: Sendable {
    case client
    case server
}

/// What the connection machine keeps of each stream; each role's stream adds the rest.
protocol HTTP2StreamState: Sendable {
    /// What this end may still send on the stream.
    var sendWindow: FlowWindow { get set }
    /// What the peer may still send on the stream, and what this end has yet to give back.
    var receiveWindow: FlowWindow { get set }
    /// Body bytes waiting for the windows.
    var outbound: HTTP2Outbound { get set }
    /// Whether the peer has yet to end its side of the stream.
    var receiving: Bool { get }
}

/// Body bytes of a stream held by flow control, and whether END_STREAM goes out with the last.
struct HTTP2Outbound: Sendable {
    var bytes: [UInt8] = []
    /// How many of `bytes` went out already.
    var offset = 0
    /// END_STREAM goes out with the last byte (or, with none, in an empty DATA frame).
    var endsStream = false

    /// Whether anything waits: bytes, or the stream's end.
    var waits: Bool { offset < bytes.count || endsStream }

    /// Bytes not yet sent.
    var remaining: Int { bytes.count - offset }

    /// Queues `more` after what still waits; `endStream` ends the stream with them.
    mutating func append(_ more: [UInt8], endStream: Bool) {
        if offset == bytes.count {
            bytes = more
            offset = 0
        } else {
            bytes += more
        }
        endsStream = endStream
    }
}

/// One HTTP/2 connection (RFC 9113) as a state machine of bytes, for either role: what both
/// ends do alike. It reads frames out of the bytes the connection took (and the client's preface,
/// as a server), joins header blocks across CONTINUATION frames, and handles on its own what needs
/// no role: the SETTINGS exchange (`local` sent and acknowledged, `peer` received and
/// acknowledged), PING, the connection's and each stream's `FlowWindow` both ways, WINDOW_UPDATE,
/// the stream-id rules (which streams are idle, who may open which), the peer's GOAWAY and
/// RST_STREAM, and the bounds against a hostile peer: header blocks up to `maxHeaderBlockBytes`,
/// frames that finish no response up to `maxControlFrames` between two responses.
///
/// It sends what waits on a window as the window opens; a server's stream closes once its
/// response went out whole. What only one role does is left to the role's machine on top
/// (`HTTP2ClientMachine`, `HTTP2ServerMachine`), as `Inbound` values `next(into:)` hands it:
/// header blocks, DATA, resets, GOAWAY.
struct HTTP2ConnectionMachine<Stream: HTTP2StreamState>: Sendable {
    /// What a frame asks of the role, once the connection did its part. A header block and
    /// DATA are where they lie (`Payload`), read with `bytes(_:)`: a plain value, which no
    /// one retains or releases.
    enum Inbound {
        /// A whole header block. `opens`: the peer opens the stream with it.
        case headers(stream: UInt32, block: Payload, endStream: Bool, opens: Bool)
        /// DATA on a stream that is open here, counted against the connection's window and given
        /// back there; the stream's window is the role's to count, once it has checked its state.
        case data(stream: UInt32, Payload, endStream: Bool)
        /// The peer reset an open stream, now closed here.
        case reset(stream: UInt32, error: HTTP2Error)
        /// A stream error (§5.4.2) on a stream the peer's WINDOW_UPDATE broke: reset and closed.
        case streamError(stream: UInt32, error: HTTP2Error)
        /// The peer is going away: its streams above `lastStream` were not processed.
        case goAway(lastStream: UInt32, error: HTTP2Error)
    }

    /// Where a header block or DATA lies: in the bytes taken, where its frame was read, or (a
    /// header block that came across CONTINUATION frames) in the block joined from its
    /// fragments. Valid until the next `next(into:)`, which may drop the bytes read.
    struct Payload: Sendable {
        fileprivate let range: Range<Int>
        fileprivate let joined: Bool

        /// Its length in bytes.
        var count: Int { range.count }
    }

    let role: HTTP2Role
    /// This end's SETTINGS, sent by `start(announcing:connectionWindow:into:)`.
    let local: HTTP2Settings
    /// The peer's SETTINGS, as far as they came.
    private(set) var peer = HTTP2Settings()
    /// Whether the peer acknowledged `local`.
    private(set) var localAcknowledged = false
    /// Whether the peer's SETTINGS came.
    private(set) var peerSettingsReceived = false
    var encoder = HPACKEncoder()
    var decoder: HPACKDecoder
    var streams = StreamTable<Stream>()
    /// What this end may still send on the connection (`flush` spends it).
    var connectionSend = FlowWindow(65_535)
    /// What the peer may still send on the connection.
    private(set) var connectionReceive = FlowWindow(65_535)
    /// The receiving window of the connection, as `start` raised it: half of it read is given back.
    private var connectionWindow = 65_535
    /// The window a stream opened now starts with towards this end: RFC 9113's until the peer
    /// acknowledged `local`, when it may have sent before reading this end's SETTINGS.
    private(set) var receiveInitialWindow: Int
    /// Whether the machine gives back the windows it reads as it reads them; when false, the
    /// role does it when it likes (a slow window).
    let returnsWindows: Bool
    /// Body bytes this end may still write before the connection has sent what it holds (the
    /// role's own limit beside the windows); unlimited unless the role sets it.
    var writeAllowance = Int.max
    /// The largest header block read, CONTINUATIONs included, before HPACK decodes it.
    let maxHeaderBlockBytes: Int
    /// Frames that finish no response taken between two responses before the peer is told to
    /// calm down: each calls for work, and a peer that sends them without end would keep the
    /// connection busy.
    let maxControlFrames: Int
    /// Such frames since the last response (`responseFinished()` sets it back).
    private(set) var controlFrames = 0
    /// The next stream this end opens.
    private(set) var nextLocalStream: UInt32
    /// The highest stream the peer opened.
    private(set) var lastPeerStream: UInt32 = 0
    /// The highest stream this end processed, which a GOAWAY of this end keeps.
    var lastProcessedStream: UInt32 = 0
    /// Set once the peer sent GOAWAY.
    private(set) var peerGoingAway = false
    /// Set once this end sent GOAWAY: streams above this one are not processed.
    var goAwayLastStream: UInt32?
    /// Bytes read that do not yet make a whole frame, from `consumed` on.
    private var input: [UInt8] = []
    private var consumed = 0
    /// The preface's bytes still expected (a server's); 0 once read.
    private var prefaceLeft: Int
    /// A header block being read across CONTINUATION frames: its stream and fragments so far.
    private var continuing: (stream: UInt32, block: [UInt8], endStream: Bool, opens: Bool)?
    /// The last header block joined from CONTINUATION frames, for the role to read.
    private var joined: [UInt8] = []
    /// The stream whose header block waits for its CONTINUATION frames, if any.
    var continuingStream: UInt32? { continuing?.stream }
    /// The buffer each header block this end sends is written into, kept between blocks.
    var scratch: [UInt8] = []

    init(
        role: HTTP2Role, local: HTTP2Settings, decoder: HPACKDecoder, returnsWindows: Bool, maxHeaderBlockBytes: Int,
        maxControlFrames: Int
    ) {
        self.role = role
        self.local = local
        self.decoder = decoder
        self.returnsWindows = returnsWindows
        self.maxHeaderBlockBytes = maxHeaderBlockBytes
        self.maxControlFrames = maxControlFrames
        switch role {
        case .client:
            // The client's SETTINGS go before any stream it opens: the server reads them first.
            receiveInitialWindow = local.initialWindowSize
            nextLocalStream = 1
            prefaceLeft = 0
        case .server:
            receiveInitialWindow = 65_535
            nextLocalStream = 2
            prefaceLeft = HTTP2Frame.preface.count
        }
    }

    /// The connection's first bytes: the preface (a client's), `local`'s parameters `announced`
    /// in a SETTINGS frame, and the connection's receiving window raised to `connectionWindow`.
    mutating func start(announcing announced: [HTTP2Setting], connectionWindow: Int, into output: inout [UInt8]) {
        if role == .client { output.append(contentsOf: HTTP2Frame.preface) }
        HTTP2Frame.settings(local.values(announced), ack: false).write(into: &output)
        if connectionWindow > 65_535 {
            HTTP2Frame.windowUpdate(stream: 0, increment: UInt32(connectionWindow - 65_535)).write(into: &output)
            connectionReceive = FlowWindow(connectionWindow)
            self.connectionWindow = connectionWindow
        }
    }

    // MARK: Streams

    /// Whether ids are left for streams this end opens (§5.1.1: 2^31-1 at most).
    var hasStreamIDs: Bool { nextLocalStream < 0x7FFF_FFFF }

    /// Takes the next id of this end's parity for a new stream.
    mutating func openLocalStream() -> UInt32 {
        let id = nextLocalStream
        nextLocalStream += 2
        return id
    }

    /// Whether `stream` is idle (§5.1): neither end opened it yet.
    func isIdle(_ stream: UInt32) -> Bool {
        let ours = (stream & 1 == 1) == (role == .client)
        return ours ? stream >= nextLocalStream : stream > lastPeerStream
    }

    /// Resets a stream (RST_STREAM) and closes it; nothing when it is not open.
    mutating func reset(_ id: UInt32, error: HTTP2Error, into output: inout [UInt8]) {
        guard streams.removeValue(forKey: id) != nil else { return }
        HTTP2Frame.resetStream(stream: id, error: error).write(into: &output)
    }

    /// Gives back every byte of the connection's window read so far by WINDOW_UPDATE: how a
    /// role that holds windows back (a slow window) lets the peer go on.
    mutating func returnConnectionWindow(into output: inout [UInt8]) {
        connectionReceive.giveBack(stream: 0, atLeast: 1, into: &output)
    }

    /// A response finished: the count of frames that finish none starts again.
    mutating func responseFinished() {
        controlFrames = 0
    }

    /// Counts a frame that finishes no response; past `maxControlFrames` the peer is told to
    /// calm down (ENHANCE_YOUR_CALM).
    mutating func calm(_ what: String) throws(HTTP2Failure) {
        controlFrames += 1
        if controlFrames > maxControlFrames {
            throw HTTP2Failure(.enhanceYourCalm, "more than \(maxControlFrames) frames (\(what) the last) with no response between")
        }
    }

    // MARK: Reading

    /// The bytes of a header block or DATA `next(into:)` handed on.
    func bytes(_ payload: Payload) -> ArraySlice<UInt8> {
        payload.joined ? joined[payload.range] : input[payload.range]
    }

    /// Takes bytes the connection read, for `next(into:)` to read frames from.
    mutating func take(_ bytes: some Collection<UInt8>) {
        input.append(contentsOf: bytes)
    }

    /// Reads frames from what was taken until one asks something of the role, writing into
    /// `output` what the others call for (acknowledgments, windows given back). Nil once no
    /// whole frame is left. Throws a connection error (§5.4.1): the connection then sends
    /// `goAway(for:)` and closes.
    mutating func next(into output: inout [UInt8]) throws(HTTP2Failure) -> Inbound? {
        // The role read the last joined block before it asked again.
        if !joined.isEmpty { joined = [] }
        if prefaceLeft > 0 {
            let expected = HTTP2Frame.preface[(HTTP2Frame.preface.count - prefaceLeft)...]
            let taken = input[consumed...].prefix(prefaceLeft)
            guard taken.elementsEqual(expected.prefix(taken.count)) else {
                throw HTTP2Failure(.protocolError, "the connection did not start with HTTP/2's preface")
            }
            prefaceLeft -= taken.count
            consumed += taken.count
            if prefaceLeft > 0 {
                compact()
                return nil
            }
        }
        while let head = try HTTP2Frame.head(input[consumed...], maxFrameSize: local.maxFrameSize) {
            let start = consumed + HTTP2Frame.headerSize
            let payload = input[start..<(start + head.length)]
            consumed = start + head.length
            // HEADERS and DATA are read where they lie; every other frame is parsed.
            if let carried = try HTTP2Frame.carried(head, payload: payload) {
                if let inbound = try handle(carried, into: &output) { return inbound }
            } else if let inbound = try handle(HTTP2Frame.parse(head, payload: payload), into: &output) {
                return inbound
            }
        }
        compact()
        return nil
    }

    /// Drops the bytes read; a connection that goes idle keeps no large buffer (ten thousand
    /// of them would).
    private mutating func compact() {
        input.removeFirst(consumed)
        consumed = 0
        if input.isEmpty && input.capacity > 4096 { input = [] }
    }

    private mutating func handle(_ frame: HTTP2Frame, into output: inout [UInt8]) throws(HTTP2Failure) -> Inbound? {
        if !peerSettingsReceived {
            guard case .settings(_, ack: false) = frame else {
                throw HTTP2Failure(.protocolError, "the preface was not followed by SETTINGS")
            }
        }
        if let continuing {
            guard case .continuation(let stream, let fragment, let endHeaders) = frame, stream == continuing.stream else {
                throw HTTP2Failure(.protocolError, "a frame other than CONTINUATION inside stream \(continuing.stream)'s header block")
            }
            guard continuing.block.count + fragment.count <= maxHeaderBlockBytes else {
                throw HTTP2Failure(.enhanceYourCalm, "stream \(continuing.stream)'s header block went past \(maxHeaderBlockBytes) bytes")
            }
            if fragment.isEmpty && !endHeaders { try calm("an empty CONTINUATION") }
            guard endHeaders else {
                self.continuing?.block.append(contentsOf: fragment)
                return nil
            }
            self.continuing = nil
            joined = continuing.block + fragment
            return .headers(
                stream: stream, block: Payload(range: joined.indices, joined: true), endStream: continuing.endStream,
                opens: continuing.opens)
        }
        switch frame {
        case .settings(let values, let ack):
            try calm("SETTINGS")
            return try settings(values, ack: ack, into: &output)
        case .ping(let data, let ack):
            try calm("PING")
            if !ack { HTTP2Frame.ping(data, ack: true).write(into: &output) }
            return nil
        case .windowUpdate(let stream, let increment):
            try calm("WINDOW_UPDATE")
            return try windowUpdate(stream, increment: Int(increment), into: &output)
        case .continuation(let stream, _, _):
            throw HTTP2Failure(.protocolError, "a CONTINUATION on stream \(stream) with no header block open")
        case .headers, .data:
            // `next(into:)` reads these where they lie (`HTTP2Frame.carried`), never parsed.
            preconditionFailure("HEADERS and DATA are read as HTTP2Frame.Carried")
        case .resetStream(let stream, let error):
            try calm("RST_STREAM")
            if isIdle(stream) { throw HTTP2Failure(.protocolError, "a RST_STREAM on idle stream \(stream)") }
            guard streams.removeValue(forKey: stream) != nil else { return nil }
            return .reset(stream: stream, error: error)
        case .goAway(let lastStream, let error, _):
            try calm("GOAWAY")
            peerGoingAway = true
            return .goAway(lastStream: lastStream, error: error)
        case .pushPromise:
            throw HTTP2Failure(
                .protocolError, role == .client ? "a PUSH_PROMISE, which SETTINGS_ENABLE_PUSH 0 forbids" : "a PUSH_PROMISE from a client")
        case .priority:
            try calm("PRIORITY")
            return nil
        case .unknown:
            try calm("an unknown frame")
            return nil
        }
    }

    /// HEADERS or DATA: their bytes, where they lie in `input`, at `fragment` or `data`.
    private mutating func handle(_ carried: HTTP2Frame.Carried, into output: inout [UInt8]) throws(HTTP2Failure) -> Inbound? {
        // As `handle(_:into:)` of a frame checks every other frame.
        if !peerSettingsReceived { throw HTTP2Failure(.protocolError, "the preface was not followed by SETTINGS") }
        if let continuing {
            throw HTTP2Failure(.protocolError, "a frame other than CONTINUATION inside stream \(continuing.stream)'s header block")
        }
        switch carried {
        case .headers(let stream, let fragment, let endStream, let endHeaders):
            let opens = try opening(stream)
            guard fragment.count <= maxHeaderBlockBytes else {
                throw HTTP2Failure(.enhanceYourCalm, "stream \(stream)'s header block went past \(maxHeaderBlockBytes) bytes")
            }
            if endHeaders {
                return .headers(stream: stream, block: Payload(range: fragment, joined: false), endStream: endStream, opens: opens)
            }
            continuing = (stream, Array(input[fragment]), endStream, opens)
            return nil
        case .data(let stream, let data, let endStream):
            if data.isEmpty && !endStream { try calm("an empty DATA") }
            // Every DATA counts against the connection's window, whatever its stream (§6.9).
            try connectionReceive.consume(data.count, stream: 0)
            if returnsWindows { connectionReceive.giveBack(stream: 0, atLeast: connectionWindow / 2, into: &output) }
            if isIdle(stream) { throw HTTP2Failure(.protocolError, "DATA on idle stream \(stream)") }
            // A stream this end closed: ignored, its window counted on the connection's.
            guard streams.index(forKey: stream) != nil else { return nil }
            return .data(stream: stream, Payload(range: data, joined: false), endStream: endStream)
        }
    }

    /// The stream-id rules for HEADERS (§5.1.1): whether it opens a stream of the peer's. Only a
    /// client opens streams (push is off); a stream of this end's that it did not open yet is
    /// idle.
    private mutating func opening(_ stream: UInt32) throws(HTTP2Failure) -> Bool {
        let peers = (stream & 1 == 1) == (role == .server)
        guard peers else {
            if stream >= nextLocalStream {
                throw HTTP2Failure(
                    .protocolError,
                    role == .server ? "HEADERS on even stream \(stream), which a client cannot open" : "HEADERS on idle stream \(stream)")
            }
            return false
        }
        guard role == .server else { throw HTTP2Failure(.protocolError, "HEADERS on even stream \(stream), which a server cannot open") }
        guard stream > lastPeerStream else { return false }
        lastPeerStream = stream
        return true
    }

    /// SETTINGS: the peer's, taken and acknowledged, or its acknowledgment of this end's.
    private mutating func settings(_ values: [(HTTP2Setting, UInt32)], ack: Bool, into output: inout [UInt8]) throws(HTTP2Failure)
        -> Inbound?
    {
        if ack {
            localAcknowledged = true
            // The peer now counts with this end's window: streams follow it.
            let delta = local.initialWindowSize - receiveInitialWindow
            receiveInitialWindow = local.initialWindowSize
            if delta != 0 {
                for id in streams.keys { try streams[id]?.receiveWindow.adjust(by: delta, stream: id) }
            }
            return nil
        }
        let delta = try peer.apply(values)
        for (setting, _) in values where setting == .headerTableSize {
            encoder.setMaxTableSize(min(peer.headerTableSize, 4096))
        }
        if delta != 0 {
            // The change applies to every open stream's window (§6.9.2).
            for id in streams.keys { try streams[id]?.sendWindow.adjust(by: delta, stream: id) }
        }
        peerSettingsReceived = true
        HTTP2Frame.settings([], ack: true).write(into: &output)
        flushAll(into: &output)
        return nil
    }

    /// WINDOW_UPDATE: the connection's window or a stream's opened; on a stream, a zero
    /// increment or one past 2^31-1 is that stream's error alone (§6.9, §6.9.1).
    private mutating func windowUpdate(_ stream: UInt32, increment: Int, into output: inout [UInt8]) throws(HTTP2Failure) -> Inbound? {
        if stream == 0 {
            try connectionSend.grant(increment, stream: 0)
            flushAll(into: &output)
            return nil
        }
        if isIdle(stream) { throw HTTP2Failure(.protocolError, "a WINDOW_UPDATE on idle stream \(stream)") }
        guard let index = streams.index(forKey: stream) else { return nil }
        do throws(HTTP2Failure) {
            guard increment > 0 else { throw HTTP2Failure(.protocolError, "a WINDOW_UPDATE of 0 on stream \(stream)") }
            // In place: the window is checked before it changes.
            try streams[at: index].sendWindow.grant(increment, stream: stream)
        } catch {
            reset(stream, error: error.error, into: &output)
            return .streamError(stream: stream, error: error.error)
        }
        flush(stream, into: &output)
        return nil
    }
}
