#if canImport(Glibc)
    import Glibc
#endif

/// The response heads a loop's connections parsed last, replayed when a response begins with the
/// same bytes: a server answers one endpoint with one head, byte for byte, until its `Date`
/// changes a second later, and checking each field line of it again costs every attempt more
/// than the rest of its parse (about 1,800 instructions against nginx's five-field heads).
/// The HPACK decoder replays a header block it has seen before the same way (`HPACKDecoder`).
///
/// Equal bytes read under equal settings leave a parser in equal states, so a replay is the
/// parse: the head's fields are set from the entry, and parsing goes on from the byte after the
/// head (the body). Only a head that arrived whole, at the start of one read, with nothing
/// before it of its message, is kept; an interim (1xx) response, a head that failed, or one over
/// `maxBytes` never is. One per connection pool, so per loop: its connections read on the loop's
/// thread alone, one at a time.
final class HeadReplay {
    /// What a response head sets in a parser, besides the bytes it took (`HTTPMessageParser`'s
    /// fields of the same names). A class, so that a replay takes one reference to it rather
    /// than a copy of each of its lists.
    final class Head {
        let status: Int
        let minorVersion: Int
        let keepAlive: Bool
        let retryAfter: [UInt8]?
        let headers: [HTTPHeader]
        let setCookies: [[UInt8]]
        let contentLength: Int?
        let transferEncoding: Bool
        let chunked: Bool
        let connectionKeepAlive: Bool?
        let state: HTTPMessageParser.State

        /// What `parser` holds at the end of a head.
        init(of parser: HTTPMessageParser) {
            status = parser.status
            minorVersion = parser.minorVersion
            keepAlive = parser.keepAlive
            retryAfter = parser.retryAfter
            headers = parser.headers
            setCookies = parser.setCookies
            contentLength = parser.contentLength
            transferEncoding = parser.transferEncoding
            chunked = parser.chunked
            connectionKeepAlive = parser.connectionKeepAlive
            state = parser.state
        }
    }

    /// The parser's settings a head's parse depends on, besides its limits (a pool's connections
    /// share those): whether the request was a HEAD, and which fields are collected.
    struct Settings: Equatable {
        var isHeadRequest: Bool
        var collectHeaders: Bool
        var collectCookies: Bool
    }

    /// How many heads are kept: the few endpoints of a journey, with room for the one whose
    /// `Date` has just changed.
    static let capacity = 4
    /// The longest head kept: one with a long cookie or many fields is unlikely to come again.
    static let maxBytes = 1024

    // Three lists of one entry each a place, the bytes and settings compared without touching
    // the heads. Touched on the loop's thread alone, one access at a time: no exclusivity
    // checks at run time (as `EventLoop`'s own state).
    @exclusivity(unchecked) private var kept: [UnsafeMutableRawBufferPointer] = []
    @exclusivity(unchecked) private var settings: [Settings] = []
    @exclusivity(unchecked) private var heads: [Head] = []
    /// Where the next head kept goes once all places are taken: the one kept longest ago.
    @exclusivity(unchecked) private var oldest = 0
    /// Heads read whole since the last replay. A server whose heads never repeat (a request id,
    /// a cookie in each) would have every response copy its head in for nothing: past
    /// `capacity` of them, one in `sampling` is kept, enough to find its heads repeating again.
    @exclusivity(unchecked) private var readSinceReplay = 0
    /// One head in how many is kept while none is replayed.
    static let sampling = 64
    /// How many heads were replayed, and kept (for tests).
    @exclusivity(unchecked) private(set) var replays = 0
    @exclusivity(unchecked) private(set) var keeps = 0

    init() {}

    deinit {
        for bytes in kept { bytes.deallocate() }
    }

    /// Sets `parser` past the kept head that the `count` bytes at `base` begin with, read under
    /// the parser's settings, as if it had read it; returns the head's length, or 0 when no
    /// kept head matches.
    func replay(_ base: UnsafeRawPointer, _ count: Int, into parser: inout HTTPMessageParser) -> Int {
        let wanted = parser.replaySettings
        for position in kept.indices {
            let bytes = kept[position]
            guard bytes.count <= count, settings[position] == wanted, memcmp(base, bytes.baseAddress!, bytes.count) == 0 else {
                continue
            }
            replays += 1
            readSinceReplay = 0
            parser.take(heads[position], length: bytes.count)
            return bytes.count
        }
        return 0
    }

    /// Keeps the head of the `length` bytes at `base`, parsed under `settings`, in a free place
    /// or in place of the one kept longest ago — unless heads have not repeated of late, and
    /// this is not one in `sampling`. `head` makes what is kept, only if it is.
    func keep(_ base: UnsafeRawPointer, _ length: Int, _ settings: Settings, _ head: () -> Head) {
        readSinceReplay += 1
        guard length <= Self.maxBytes, readSinceReplay <= Self.capacity || readSinceReplay % Self.sampling == 0 else { return }
        keeps += 1
        let head = head()
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
        bytes.copyMemory(from: UnsafeRawBufferPointer(start: base, count: length))
        if kept.count < Self.capacity {
            kept.append(bytes)
            self.settings.append(settings)
            heads.append(head)
            return
        }
        kept[oldest].deallocate()
        kept[oldest] = bytes
        self.settings[oldest] = settings
        heads[oldest] = head
        oldest = (oldest + 1) % Self.capacity
    }
}

extension HTTPMessageParser {
    /// The settings a head's parse depends on now.
    var replaySettings: HeadReplay.Settings {
        HeadReplay.Settings(isHeadRequest: isHeadRequest, collectHeaders: collectHeaders, collectCookies: collectCookies)
    }

    /// Whether the next byte is the first of a response, with no interim response before it: where
    /// a head may be replayed, and from where one may be kept. Asked before any byte of a read
    /// is taken.
    var atResponseStart: Bool {
        guard replay != nil, case .startLine = state, !sawBytes, line.isEmpty, interimResponses == 0 else { return false }
        return true
    }

    /// Replays the head the `count` bytes at `base` begin with, if one is kept: the parser is
    /// then past it, as if it had read it. Returns the bytes it took, or 0.
    mutating func replayHead(_ base: UnsafeRawPointer, _ count: Int) -> Int {
        guard let replay else { return 0 }
        return replay.replay(base, count, into: &self)
    }

    /// Takes what `head`, `length` bytes long, sets. Lists that are empty on both sides — all of
    /// them, as a rule, after `reset()` — are left alone: each assignment is a retain and a
    /// release.
    mutating func take(_ head: HeadReplay.Head, length: Int) {
        status = head.status
        minorVersion = head.minorVersion
        keepAlive = head.keepAlive
        if head.retryAfter != nil || retryAfter != nil { retryAfter = head.retryAfter }
        if !head.headers.isEmpty || !headers.isEmpty { headers = head.headers }
        if !head.setCookies.isEmpty || !setCookies.isEmpty { setCookies = head.setCookies }
        contentLength = head.contentLength
        transferEncoding = head.transferEncoding
        chunked = head.chunked
        connectionKeepAlive = head.connectionKeepAlive
        state = head.state
        headBytes = length
    }

    /// Keeps the head just read — the first `length` bytes at `base`, all of this message —
    /// for replay.
    func keepHead(_ base: UnsafeRawPointer, _ length: Int) {
        guard let replay, interimResponses == 0 else { return }
        replay.keep(base, length, replaySettings) { HeadReplay.Head(of: self) }
    }
}
