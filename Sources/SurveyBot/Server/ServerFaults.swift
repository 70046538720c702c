import SurveyEngine
import SurveyWire

/// The faults the reference server injects, each seeded and repeatable: the n-th request an
/// endpoint receives meets the same fault in every run with the same seed.
struct ServerFaults: Sendable, Hashable {
    /// Fraction of submits answered `400` (the app's "Failure...." banner).
    var failRate: Double = 0
    /// Fraction of requests to either endpoint answered `500`.
    var errorRate: Double = 0
    /// The first this-many requests the server receives are answered `503` (a cold boot).
    var coldStart: Int = 0
    /// Added before every answer: fixed, or uniform in a range.
    var latency: DurationRange = .zero
    /// Fraction of requests whose connection is reset (RST) instead of answered.
    var resetRate: Double = 0
    /// Fraction of requests answered with bytes that are not HTTP.
    var malformedRate: Double = 0
    /// What a malformed answer breaks: the status line or a header line, or it is not HTTP at all.
    var malformedKind: MalformedKind = .statusLine
    /// Fraction of requests whose answer trickles out one byte per `trickleInterval`.
    var slowRate: Double = 0
    /// The pause between bytes of a slow answer.
    var trickleInterval: Duration = .milliseconds(100)
    /// Fraction of requests never answered (the connection stays open and silent).
    var hangRate: Double = 0
    /// Close every connection after its first response, without a `Connection: close` header.
    var closeAfterEachResponse = false
    /// Fraction of requests met by the server going away: over HTTP/2, GOAWAY leaving this
    /// stream and later ones unprocessed (the client sends them again on a new connection);
    /// over HTTP/1.1, the connection closed unanswered.
    var goAwayRate: Double = 0
    /// HTTP/2 only: each stream's receive window in bytes (SETTINGS_INITIAL_WINDOW_SIZE).
    var windowSize = 65_535
    /// HTTP/2 only: how long the server waits before giving back the windows it read; with a
    /// small `windowSize`, a slow window.
    var windowDelay: Duration = .zero

    enum MalformedKind: String, Sendable, Hashable, CaseIterable {
        case statusLine = "status"
        case headers
        /// Bytes that cannot begin an HTTP/1 response, without a line end: an HTTP/2 frame.
        case binary
    }

    init() {}

    /// True when no fault is configured.
    var isEmpty: Bool { self == ServerFaults() }
}

/// How the reference server is set up: its questions, faults and seed.
struct ReferenceServerConfiguration: Sendable, Hashable {
    /// Where the questions come from.
    enum Questions: Sendable, Hashable {
        /// The built-in set, the first `count` questions of it (1–10 000).
        case builtin(count: Int)
        /// A JSON file holding a list of `{"id": 1, "question": "…"}`.
        case file(String)
        /// A file served as the questions body byte for byte, unchecked: for rehearsing a
        /// backend that breaks the contract (not a list, duplicate ids, a 10 MB body).
        case raw(String)
    }

    /// Whether the server speaks https, and with which certificate.
    enum TLS: Sendable, Hashable {
        /// Plain http.
        case off
        /// A certificate made at start for `localhost`, `127.0.0.1` and `::1`, valid for a day:
        /// `builtin.tls: true`, https with zero set-up. Whoever starts the server trusts exactly it.
        case selfSigned
        /// A PEM certificate chain and its key (`serve --tls-cert FILE --tls-key FILE`).
        case files(certificate: String, key: String)
    }

    var questions: Questions = .builtin(count: 10)
    /// The names besides `localhost`, IP addresses and the bound host whose requests are
    /// answered (`serve --allow-host`; `*` for any): others are `421` (`HostCheck`).
    var allowedHosts: Set<String> = []
    var faults = ServerFaults()
    var seed: UInt64 = 0
    var tls = TLS.off
    /// Whether the server speaks HTTP/2 too: `h2` by ALPN over TLS, cleartext h2 with prior
    /// knowledge on the same port as HTTP/1.1.
    var http2 = false
    /// Whether the server hands out sessions at `POST /session` and requires one on the survey's
    /// calls: the token as `Authorization: Bearer …` and the session cookie (401 otherwise).
    var login = false
    /// The API's shape: the survey contract's, or one of a survey platform's.
    var api = SurveyStyle.contract
    /// The survey the contract, `pages`, `one_post` and `html` shapes serve: the plain questions, or the typed
    /// survey (`TypedSurvey.standard`), which sets the questions by itself.
    var survey = ServedSurvey.plain

    init() {}
}
