import SurveyWire
import Synchronization

/// What the reference server stored and the sessions it keeps, for the shapes besides the
/// contract's; with the typed survey, also the answers stored by question and value, and how
/// often each question was shown.
final class StyleBook: Sendable {
    /// The most sessions or keys kept open; beyond them, opening one is answered `503`.
    static let capacity = 1_000_000

    private struct State {
        var opened: UInt64 = 0
        /// `pages`: session → the page it is at (from 0).
        var pages: [String: Int] = [:]
        /// `pages` with the typed survey: session → the conditions its pages taken so far hold.
        var holding: [String: Set<TypedSurvey.Condition>] = [:]
        /// `pages`: sessions closed by `DELETE`.
        var closed = 0
        /// `jsonrpc`: keys handed out and not released.
        var keys: Set<String> = []
        var storedResponses = 0
        var storedAnswers = 0
        /// The typed survey: question → value → answers stored.
        var answersByQuestion: [String: [String: Int]] = [:]
        /// The typed survey: question → times listed to a respondent.
        var shownByQuestion: [String: Int] = [:]
        /// `html`: session → its CSRF token and the key of the page it was given last (nil once
        /// it finished).
        var forms: [String: (csrf: String, key: String?)] = [:]
        /// `html`: page keys handed out, each made from its number.
        var pageKeys: UInt64 = 0
    }

    /// An `html` session as a page post finds it.
    struct FormSession: Sendable {
        /// The page it is at (from 0); the page count once finished.
        var page: Int
        /// The conditions its pages taken so far hold.
        var holding: Set<TypedSurvey.Condition>
        var csrf: String
        /// The key of the page it was given last; nil once finished.
        var key: String?
    }

    private let state = Mutex(State())

    /// Responses stored whole, and the answers stored (a page's as it is taken, finished or not).
    var stored: (responses: Int, answers: Int) {
        state.withLock { ($0.storedResponses, $0.storedAnswers) }
    }

    /// The typed survey's counts: the answers stored by question and value, and the times each
    /// question was shown.
    var tallies: (answers: [String: [String: Int]], shown: [String: Int]) {
        state.withLock { ($0.answersByQuestion, $0.shownByQuestion) }
    }

    /// Page sessions closed.
    var closed: Int { state.withLock { $0.closed } }

    /// A new session id or key, made from the seed and its number; nil when full.
    func open(seed: UInt64, prefix: String, rpc: Bool) -> String? {
        state.withLock { state -> String? in
            guard (rpc ? state.keys.count : state.pages.count) < Self.capacity else { return nil }
            state.opened += 1
            let id = prefix + SessionBook.hex(SplitMix64.mix(seed ^ SplitMix64.mix(state.opened)))
            if rpc { state.keys.insert(id) } else { state.pages[id] = 0 }
            return id
        }
    }

    /// A new `html` session: its id (the cookie's value), its CSRF token and its first page's
    /// key, each made from the seed and a number; nil when full.
    func openForm(seed: UInt64) -> (id: String, csrf: String, key: String)? {
        state.withLock { state -> (id: String, csrf: String, key: String)? in
            guard state.pages.count < Self.capacity else { return nil }
            state.opened += 1
            let id = "HS_" + SessionBook.hex(SplitMix64.mix(seed ^ SplitMix64.mix(state.opened)))
            let csrf = SessionBook.hex(SplitMix64.mix(~seed ^ SplitMix64.mix(state.opened)))
            let key = Self.pageKey(seed: seed, &state)
            state.pages[id] = 0
            state.forms[id] = (csrf, key)
            return (id, csrf, key)
        }
    }

    /// The `html` session `id`; nil for none.
    func form(_ id: String) -> FormSession? {
        state.withLock { state in
            guard let page = state.pages[id], let form = state.forms[id] else { return nil }
            return FormSession(page: page, holding: state.holding[id] ?? [], csrf: form.csrf, key: form.key)
        }
    }

    /// A new key for the page `html` session `id` is at, which is given again (a required
    /// question left empty): the old key is stale from then on. Nil when the session is not at
    /// page `page` with key `key` any more.
    func rekey(form id: String, page: Int, key: String, seed: UInt64) -> String? {
        state.withLock { state in
            guard state.pages[id] == page, let form = state.forms[id], form.key == key else { return nil }
            let next = Self.pageKey(seed: seed, &state)
            state.forms[id]?.key = next
            return next
        }
    }

    /// Takes page `page` of `html` session `id` as `take` does, when `key` is still its page's
    /// key: the next page's key, or the end when that was the last of `pages`.
    func take(form id: String, page: Int, key: String, pages: Int, checked: TypedSurvey.Checked, seed: UInt64) -> FormTake {
        state.withLock { state -> FormTake in
            guard state.pages[id] == page, let form = state.forms[id], form.key == key else { return .stale }
            state.pages[id] = page + 1
            state.storedAnswers += checked.answers
            if page + 1 >= pages { state.storedResponses += 1 }
            if !checked.holding.isEmpty { state.holding[id, default: []].formUnion(checked.holding) }
            Self.count(checked.tally, into: &state)
            let next = page + 1 < pages ? Self.pageKey(seed: seed, &state) : nil
            state.forms[id]?.key = next
            return next.map(FormTake.next) ?? .finished
        }
    }

    /// What a page post made of an `html` session.
    enum FormTake: Sendable, Equatable {
        /// The page was taken: the next page goes with this key.
        case next(key: String)
        /// The last page was taken: the response is stored.
        case finished
        /// The page was taken already, or its key is not the one last given.
        case stale
    }

    /// A page key not handed out before, as LimeSurvey's `LEMpostKey`.
    private static func pageKey(seed: UInt64, _ state: inout State) -> String {
        state.pageKeys += 1
        return SessionBook.hex(SplitMix64.mix(seed &+ 0x5EED ^ SplitMix64.mix(state.pageKeys | 1 << 63)))
    }

    /// The page session `id` is at and the conditions its pages taken so far hold; nil for none.
    func session(_ id: String) -> (page: Int, holding: Set<TypedSurvey.Condition>)? {
        state.withLock { state in state.pages[id].map { ($0, state.holding[id] ?? []) } }
    }

    /// Takes page `page` of session `id` with `answers` answers, stored as a platform stores a
    /// response in progress: the session moves on, and its response counts as stored whole when
    /// that was the last of `pages`. With the typed survey, `checked` gives the answers, their
    /// buckets and the conditions they make hold. False when the session is not at that page.
    func take(page: Int, of id: String, answers: Int, pages: Int, checked: TypedSurvey.Checked? = nil) -> Bool {
        state.withLock { state in
            guard state.pages[id] == page else { return false }
            // A finished session stays until it is closed, at a page past the last.
            state.pages[id] = page + 1
            state.storedAnswers += answers
            if page + 1 >= pages { state.storedResponses += 1 }
            if let checked {
                if !checked.holding.isEmpty { state.holding[id, default: []].formUnion(checked.holding) }
                Self.count(checked.tally, into: &state)
            }
            return true
        }
    }

    /// Ends a page session, finished or not (an unfinished one is not stored); false when there
    /// is none.
    func close(page id: String) -> Bool {
        state.withLock { state in
            guard state.pages.removeValue(forKey: id) != nil else { return false }
            state.holding[id] = nil
            state.closed += 1
            return true
        }
    }

    /// Whether `key` was handed out and not released.
    func isOpen(key: String) -> Bool {
        state.withLock { $0.keys.contains(key) }
    }

    /// Releases a key; false when it was not open.
    func release(key: String) -> Bool {
        state.withLock { $0.keys.remove(key) != nil }
    }

    /// Counts a response stored whole with `answers` answers, and with the typed survey the
    /// buckets of `checked`. Returns the number of responses stored so far, this one included.
    @discardableResult
    func store(answers: Int, checked: TypedSurvey.Checked? = nil) -> Int {
        state.withLock { state in
            state.storedResponses += 1
            state.storedAnswers += answers
            if let checked { Self.count(checked.tally, into: &state) }
            return state.storedResponses
        }
    }

    /// Counts the answers of `checked`, stored one by one rather than as a response (the
    /// contract's submits).
    func count(_ checked: TypedSurvey.Checked) {
        state.withLock { state in
            state.storedAnswers += checked.answers
            Self.count(checked.tally, into: &state)
        }
    }

    /// Counts the typed survey's questions `ids` as shown once each.
    func show(_ ids: some Sequence<String>) {
        state.withLock { state in
            for id in ids { state.shownByQuestion[id, default: 0] += 1 }
        }
    }

    private static func count(_ tally: [TypedSurvey.Tally], into state: inout State) {
        for bucket in tally { state.answersByQuestion[bucket.question, default: [:]][bucket.value, default: 0] += 1 }
    }
}
