import SurveyJourney

/// Every request the reference server received, by endpoint and outcome.
struct ReferenceServerStats: Sendable, Equatable {
    /// Per endpoint (`questions`, `submit`, `session`, `other`): outcome → count. An outcome is a status
    /// code (`"200"`, `"400"`, `"503"`) or a fault without a status (`"reset"`, `"hang"`,
    /// `"malformed"`, `"goaway"`), or `"closed"` for a request that arrived on a connection the server was
    /// closing and was never answered.
    var endpoints: [String: [String: Int]]
    /// Submits refused because their body was not `{"id": …, "answer": …}` for a known id.
    var invalidSubmits: Int
    /// Answers that were trickled out slowly (counted under their status as well).
    var slowAnswers: Int
    var connectionsAccepted: Int
    var connectionsOpen: Int
    /// Requests refused by the HTTP layer (unparseable, or over the size limits).
    var rejected: Int
    /// With `login`: each token handed out → the survey calls (`questions`, `submit`) that
    /// carried it and its session's cookie. Every respondent that logged in once and used only
    /// its own session shows as one token with its own calls.
    var sessions: [String: Int] = [:]
    /// With `login`: the sessions handed out beyond the first `SessionBook.listed`, which
    /// `sessions` leaves out (`sessions_beyond_limit`, written only when there are any).
    var sessionsBeyondLimit = 0
    /// With `login`: sessions closed by `DELETE /session`.
    var closedSessions = 0
    /// With an API shape besides the contract's: the responses it stored whole, and the answers
    /// in them (`SurveyStyle`).
    var stored: (responses: Int, answers: Int) = (0, 0)
    /// With the typed survey (and any survey of the `html` shape): question → value → answers
    /// stored, each choice of a `multiple` once, a number by its value, a text as `(text)`
    /// (`stored.answers_by_question`).
    var answersByQuestion: [String: [String: Int]] = [:]
    /// With the typed survey: question → the times it was listed to a respondent — on each page
    /// given (`pages`, `html`: again when a page is given again), in each `GET /survey` answered
    /// (`one_post`) (`stored.shown_by_question`).
    var shownByQuestion: [String: Int] = [:]

    static func == (lhs: ReferenceServerStats, rhs: ReferenceServerStats) -> Bool {
        lhs.endpoints == rhs.endpoints && lhs.invalidSubmits == rhs.invalidSubmits && lhs.slowAnswers == rhs.slowAnswers
            && lhs.connectionsAccepted == rhs.connectionsAccepted && lhs.connectionsOpen == rhs.connectionsOpen
            && lhs.rejected == rhs.rejected && lhs.sessions == rhs.sessions && lhs.sessionsBeyondLimit == rhs.sessionsBeyondLimit
            && lhs.closedSessions == rhs.closedSessions
            && lhs.stored == rhs.stored && lhs.answersByQuestion == rhs.answersByQuestion && lhs.shownByQuestion == rhs.shownByQuestion
    }

    /// Requests an endpoint received, whatever became of them.
    func requests(_ endpoint: String) -> Int {
        endpoints[endpoint, default: [:]].values.reduce(0, +)
    }

    /// The stats as the JSON of `GET /__stats`, keys sorted.
    var json: String {
        func object(_ counts: [String: Int]) -> String {
            "{" + counts.sorted { $0.key < $1.key }.map { "\(JSONValue.quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
        }
        let byQuestion =
            "{"
            + answersByQuestion.sorted { $0.key < $1.key }.map { "\(JSONValue.quoted($0.key)):\(object($0.value))" }.joined(separator: ",")
            + "}"
        let endpointsJSON = ["other", "questions", "session", "submit"].map { name in
            let counts = endpoints[name, default: [:]]
            return "\"\(name)\":{\"outcomes\":\(object(counts)),\"requests\":\(counts.values.reduce(0, +))}"
        }
        return """
            {"closed_sessions":\(closedSessions),"connections":{"accepted":\(connectionsAccepted),"open":\(connectionsOpen)},\
            "endpoints":{\(endpointsJSON.joined(separator: ","))},\
            "invalid_submits":\(invalidSubmits),"rejected":\(rejected),"sessions":\(object(sessions)),\
            \(sessionsBeyondLimit > 0 ? "\"sessions_beyond_limit\":\(sessionsBeyondLimit)," : "")"slow_answers":\(slowAnswers),\
            "stored":{"answers":\(stored.answers),"answers_by_question":\(byQuestion),"responses":\(stored.responses),\
            "shown_by_question":\(object(shownByQuestion))}}
            """
    }

    /// Reads the JSON of `GET /__stats`.
    static func parse(_ body: some Collection<UInt8>) -> ReferenceServerStats? {
        guard case .success(let value) = JSONValue.parse(body) else { return nil }
        func int(_ value: JSONValue?) -> Int? {
            if case .integer(let number)? = value { return number }
            return nil
        }
        guard case .object(let endpointMembers)? = value["endpoints"] else { return nil }
        var endpoints: [String: [String: Int]] = [:]
        for (name, endpoint) in endpointMembers {
            guard case .object(let outcomes)? = endpoint["outcomes"] else { return nil }
            var counts: [String: Int] = [:]
            for (outcome, count) in outcomes {
                guard let count = int(count) else { return nil }
                counts[outcome] = count
            }
            endpoints[name] = counts
        }
        guard let invalid = int(value["invalid_submits"]), let slow = int(value["slow_answers"]), let rejected = int(value["rejected"]),
            let accepted = int(value["connections"]?["accepted"]), let open = int(value["connections"]?["open"])
        else { return nil }
        var sessions: [String: Int] = [:]
        if case .object(let members)? = value["sessions"] {
            for (token, count) in members {
                guard let count = int(count) else { return nil }
                sessions[token] = count
            }
        }
        func counts(_ value: JSONValue?) -> [String: Int]? {
            guard let value else { return [:] }
            guard case .object(let members) = value else { return nil }
            var counts: [String: Int] = [:]
            for (name, count) in members {
                guard let count = int(count) else { return nil }
                counts[name] = count
            }
            return counts
        }
        guard let shown = counts(value["stored"]?["shown_by_question"]) else { return nil }
        var byQuestion: [String: [String: Int]] = [:]
        if case .object(let questions)? = value["stored"]?["answers_by_question"] {
            for (question, values) in questions {
                guard let values = counts(values) else { return nil }
                byQuestion[question] = values
            }
        }
        return ReferenceServerStats(
            endpoints: endpoints, invalidSubmits: invalid, slowAnswers: slow, connectionsAccepted: accepted, connectionsOpen: open,
            rejected: rejected, sessions: sessions, sessionsBeyondLimit: int(value["sessions_beyond_limit"]) ?? 0,
            closedSessions: int(value["closed_sessions"]) ?? 0,
            stored: (int(value["stored"]?["responses"]) ?? 0, int(value["stored"]?["answers"]) ?? 0), answersByQuestion: byQuestion,
            shownByQuestion: shown)
    }
}
