/// One respondent's cookies (RFC 6265): what responses set, sent back on the requests that
/// match them — by domain, path, expiry and `Secure` — and never to another respondent.
///
/// Bounded like a browser's: a cookie's name and value hold at most 4096 bytes (a longer one is
/// ignored), a domain keeps at most 50 cookies and the jar 150, the oldest going first. Values
/// are secrets: nothing here prints them.
///
/// Empty, it costs one word and nothing else: its storage is made when the first cookie comes,
/// so ten thousand respondents of a server that sets no cookie carry no more than a nil each,
/// and `header(for:now:)` returns nil at once. The header last built is kept and given again
/// (the same array, not a copy) until a cookie is stored or one expires, so a respondent whose
/// cookies do not change builds it once. A value: a copy of a jar is another jar (copy on write).
package struct CookieJar: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The storage, shared by copies of a jar until one of them writes.
    private final class Box: @unchecked Sendable {
        // Unchecked: a box is only written through a jar that holds the one reference to it
        // (`makeUnique`), so no two threads ever touch one box while one of them writes.
        var contents: CookieJarContents

        init(_ contents: CookieJarContents) {
            self.contents = contents
        }
    }

    private var box: Box?

    /// An empty jar.
    package init() {}

    static let maxPerDomain = 50
    static let maxCookies = 150
    /// The most `Set-Cookie` fields one response may set; the rest are ignored.
    static let maxPerResponse = 64

    package var isEmpty: Bool { box?.contents.cookies.isEmpty ?? true }

    /// How many cookies the jar holds, expired ones included until the next store or header.
    var count: Int { box?.contents.cookies.count ?? 0 }

    /// The cookies' names, domains and paths; never a value (nor the cached header, which holds them).
    package var description: String { "CookieJar(\((box?.contents.cookies ?? []).map(\.description).joined(separator: ", ")))" }
    package var debugDescription: String { description }

    /// Every cookie's value, for what masks secrets in what a server said (a value is never
    /// shown: `description` leaves them out).
    package var values: [String] {
        (box?.contents.cookies ?? []).map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// The value of the `Cookie` header for a request to `origin` at `now` (a reading of the
    /// engine's clock): `name=value` pairs joined by `; `, longer paths first, then older
    /// cookies first (RFC 6265 §5.4). Nil when no cookie matches.
    package mutating func header(for origin: CookieOrigin, now: UInt64) -> [UInt8]? {
        // No binding of `box` here: a second reference would make every call copy it.
        guard box?.contents.cookies.isEmpty == false else { return nil }
        makeUnique()
        return self.box.unsafelyUnwrapped.contents.header(for: origin, now: now)
    }

    /// Stores the cookies of a response to `origin` (its `Set-Cookie` field values), at `now`
    /// on the engine's clock and `unixTime` on the wall clock (for `Expires`).
    package mutating func store(_ fields: [[UInt8]], from origin: CookieOrigin, now: UInt64, unixTime: Int64) {
        for field in fields.prefix(Self.maxPerResponse) {
            if let parsed = SetCookie(field) { store(parsed, from: origin, now: now, unixTime: unixTime) }
        }
    }

    /// Stores one cookie by RFC 6265 §5.3 (`CookieJarContents.store`).
    mutating func store(_ setCookie: SetCookie, from origin: CookieOrigin, now: UInt64, unixTime: Int64) {
        if box == nil { box = Box(CookieJarContents()) }
        makeUnique()
        box.unsafelyUnwrapped.contents.store(setCookie, from: origin, now: now, unixTime: unixTime)
    }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box), let shared = box { box = Box(shared.contents) }
    }
}

/// What a cookie jar holds: its cookies and the header last built.
struct CookieJarContents: Sendable {
    fileprivate(set) var cookies: [Cookie] = []
    private var created: UInt64 = 0
    private var cachedOrigin: CookieOrigin?
    private var cachedHeader: [UInt8]?
    /// The earliest expiry among the cookies in the cached header: past it, build again.
    private var cachedUntil: UInt64 = 0

    /// The value of the `Cookie` header for a request to `origin` at `now` (a reading of the
    /// engine's clock): `name=value` pairs joined by `; `, longer paths first, then older
    /// cookies first (RFC 6265 §5.4). Nil when no cookie matches.
    mutating func header(for origin: CookieOrigin, now: UInt64) -> [UInt8]? {
        if cookies.isEmpty { return nil }
        if now < cachedUntil, cachedOrigin == origin { return cachedHeader }
        cookies.removeAll { $0.isExpired(at: now) }
        let matching = cookies.filter { $0.matches(origin) }.sorted {
            $0.path.utf8.count != $1.path.utf8.count ? $0.path.utf8.count > $1.path.utf8.count : $0.creation < $1.creation
        }
        var header: [UInt8]?
        if !matching.isEmpty {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(matching.reduce(0) { $0 + $1.name.count + $1.value.count + 3 })
            for cookie in matching {
                if !bytes.isEmpty { bytes.append(contentsOf: [0x3B, 0x20]) }
                bytes.append(contentsOf: cookie.name)
                bytes.append(0x3D)
                bytes.append(contentsOf: cookie.value)
            }
            header = bytes
        }
        cachedOrigin = origin
        cachedHeader = header
        cachedUntil = cookies.lazy.map(\.expiry).min() ?? .max
        return header
    }

    /// RFC 6265 §5.3, steps 2–12, with the jar's bounds.
    mutating func store(_ setCookie: SetCookie, from origin: CookieOrigin, now: UInt64, unixTime: Int64) {
        guard setCookie.name.count + setCookie.value.count <= Cookie.maxBytes else { return }
        let expiry: UInt64
        if let maxAge = setCookie.maxAge {
            expiry = maxAge <= 0 ? 0 : Self.after(now, seconds: maxAge)
        } else if let expires = setCookie.expires {
            expiry = expires <= unixTime ? 0 : Self.after(now, seconds: expires - unixTime)
        } else {
            expiry = .max
        }
        var domain = setCookie.domain ?? ""
        // Without a list of public suffixes, a single label (`org`, `localhost`) is taken for
        // one: a cookie for it is kept only by that very host, as host-only (step 5).
        if !domain.isEmpty, !domain.contains(".") {
            guard domain == origin.host else { return }
            domain = ""
        }
        let hostOnly: Bool
        if domain.isEmpty {
            hostOnly = true
            domain = origin.host
        } else {
            guard Cookie.domainMatches(origin, domain) else { return }
            hostOnly = false
        }
        var cookie = Cookie(
            name: setCookie.name, value: setCookie.value, domain: domain, path: setCookie.path ?? origin.defaultPath, hostOnly: hostOnly,
            secure: setCookie.secure, expiry: expiry, creation: created)
        created += 1
        invalidate()
        if let old = cookies.firstIndex(where: { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }) {
            cookie.creation = cookies[old].creation
            cookies.remove(at: old)
        }
        // An expired cookie only deletes the one it replaces (how servers delete cookies).
        guard !cookie.isExpired(at: now) else { return }
        cookies.removeAll { $0.isExpired(at: now) }
        if cookies.count(where: { $0.domain == cookie.domain }) >= CookieJar.maxPerDomain,
            let oldest = cookies.indices.filter({ cookies[$0].domain == cookie.domain }).min(by: {
                cookies[$0].creation < cookies[$1].creation
            })
        {
            cookies.remove(at: oldest)
        }
        if cookies.count >= CookieJar.maxCookies, let oldest = cookies.indices.min(by: { cookies[$0].creation < cookies[$1].creation }) {
            cookies.remove(at: oldest)
        }
        cookies.append(cookie)
    }

    private mutating func invalidate() {
        cachedOrigin = nil
        cachedHeader = nil
        cachedUntil = 0
    }

    /// `now` plus `seconds`, saturating: a cookie for a thousand years lives as long as the run.
    private static func after(_ now: UInt64, seconds: Int64) -> UInt64 {
        let (nanoseconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max - 1 }
        let (sum, overflow2) = now.addingReportingOverflow(nanoseconds)
        return overflow2 ? .max - 1 : min(sum, .max - 1)
    }
}
