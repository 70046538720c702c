import Foundation
import SurveyEngine
import SurveyWire
import Synchronization

/// The reference server's sessions (`builtin.login`): each login gets a token and a session id,
/// both made from the seed and the login's number — distinct for every login, the same in every
/// run with the seed — and each survey call is admitted only with a token and the cookie of
/// the same session, and counted against it.
final class SessionBook: Sendable {
    /// One login's credentials.
    struct Session: Sendable, Equatable {
        /// Sent back as `Authorization: Bearer <token>`.
        var token: String
        /// The value of the `session` cookie and of the `X-Session-Id` header.
        var id: String
    }

    /// The name of the session cookie.
    static let cookieName = "session"
    /// The most sessions the server keeps; a login beyond them is answered `503`.
    static let capacity = 1_000_000

    private struct State {
        var logins: UInt64 = 0
        /// Token → session id, the survey calls admitted with it, and whether it was closed.
        var byToken: [String: (id: String, requests: Int, closed: Bool)] = [:]
        /// The first `listed` tokens, in the order they were handed out: what `/__stats` lists.
        var firstTokens: [String] = []
        var closed = 0
    }

    /// The most sessions `/__stats` lists: any client may open sessions, and the stats are
    /// answered on the event loop to anyone who asks, so what one answer costs is bounded.
    static let listed = 1_000

    private let state = Mutex(State())

    /// A new session, or nil when the book is full.
    func open(seed: UInt64) -> Session? {
        state.withLock { state -> Session? in
            guard state.byToken.count < Self.capacity else { return nil }
            let n = state.logins
            state.logins += 1
            // `mix` is a bijection: different logins get different tokens and ids.
            let session = Session(
                token: "t" + Self.hex(SplitMix64.mix(seed ^ SplitMix64.mix(n &+ 1))),
                id: "s" + Self.hex(SplitMix64.mix(~seed ^ SplitMix64.mix(n &+ 1))))
            state.byToken[session.token] = (session.id, 0, false)
            if state.firstTokens.count < Self.listed { state.firstTokens.append(session.token) }
            return session
        }
    }

    /// Whether a request carrying these `Authorization` and `Cookie` fields belongs to a session:
    /// `Bearer <token>` of a session handed out and not closed, and that session's cookie.
    /// Counts it if so.
    func admit(authorization: String?, cookie: String?) -> Bool {
        guard let authorization, let token = Self.bearerToken(authorization), let cookie else { return false }
        return state.withLock { state in
            guard let session = state.byToken[token], !session.closed, Self.cookie(cookie, has: session.id) else { return false }
            state.byToken[token]?.requests += 1
            return true
        }
    }

    /// Closes the session of an admitted request's `Authorization`: its token is refused from
    /// then on.
    func close(authorization: String?) {
        guard let authorization, let token = Self.bearerToken(authorization) else { return }
        state.withLock { state in
            guard state.byToken[token]?.closed == false else { return }
            state.byToken[token]?.closed = true
            state.closed += 1
        }
    }

    /// Sessions closed by a logout.
    func closedCount() -> Int {
        state.withLock { $0.closed }
    }

    /// Token → survey calls admitted with it, for the first `listed` sessions handed out, and
    /// how many more there are: the cost of an answer is bounded however many sessions clients
    /// opened.
    func requestsByToken() -> (listed: [String: Int], beyond: Int) {
        state.withLock { state in
            var listed: [String: Int] = [:]
            listed.reserveCapacity(state.firstTokens.count)
            for token in state.firstTokens { listed[token] = state.byToken[token]?.requests ?? 0 }
            return (listed, state.byToken.count - listed.count)
        }
    }

    /// The token of `Bearer <token>` (the scheme in any case, RFC 9110 §11.1).
    static func bearerToken(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: " ")
        return token.isEmpty ? nil : token
    }

    /// Whether a `Cookie` field holds `session=<id>`.
    static func cookie(_ field: String, has id: String) -> Bool {
        field.split(separator: ";").contains { pair in
            let trimmed = pair.trimmingCharacters(in: " ")
            return trimmed == "\(cookieName)=\(id)"
        }
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
