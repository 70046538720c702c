extension RunReport {
    /// What came of the answers: submitted, unanswered, skipped, declined, and with
    /// `report.include_answers` the ones given.
    struct Answers: Codable, Sendable, Equatable {
        var submitted: Int
        /// Questions whose submit still failed after its retries.
        var unanswered: Int
        /// Questions the plan had no answer for, never sent. Reports of versions before it call
        /// it `missing` (and count those questions in `unanswered` too).
        var skipped: Int
        /// Questions respondents chose not to answer: optional ones skipped (`skip_optional`), or
        /// answered `skip()`. Absent from reports before it: 0.
        var declined = 0
        /// With `report.include_answers`: the answers respondents gave, by question id, each as
        /// the plan shows it (a value from the environment by its variable's name, a data row's
        /// as `(from the data)`) → how often.
        var given: [String: [String: Int]]?
        /// With `report.include_answers`: the answers given to the questions past the first
        /// `QuestionTable.questionLimit` ids, together, as `given` shows them
        /// (`given_beyond_limit`); absent when no question was past it.
        var givenBeyondLimit: [String: Int]?

        init(submitted: Int, unanswered: Int, skipped: Int, given: [String: [String: Int]]? = nil) {
            self.submitted = submitted
            self.unanswered = unanswered
            self.skipped = skipped
            self.given = given
        }

        private enum CodingKeys: String, CodingKey {
            case submitted, unanswered, skipped, declined, missing, given
            case givenBeyondLimit = "given_beyond_limit"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            submitted = try container.decode(Int.self, forKey: .submitted)
            unanswered = try container.decode(Int.self, forKey: .unanswered)
            skipped = try container.decodeIfPresent(Int.self, forKey: .skipped) ?? container.decode(Int.self, forKey: .missing)
            declined = try container.decodeIfPresent(Int.self, forKey: .declined) ?? 0
            given = try container.decodeIfPresent([String: [String: Int]].self, forKey: .given)
            givenBeyondLimit = try container.decodeIfPresent([String: Int].self, forKey: .givenBeyondLimit)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(submitted, forKey: .submitted)
            try container.encode(unanswered, forKey: .unanswered)
            try container.encode(skipped, forKey: .skipped)
            if declined > 0 { try container.encode(declined, forKey: .declined) }
            try container.encodeIfPresent(given, forKey: .given)
            try container.encodeIfPresent(givenBeyondLimit, forKey: .givenBeyondLimit)
        }
    }

    struct Throughput: Codable, Sendable, Equatable {
        var attemptsPerS: Double
        /// Attempts started in each second of the run, and how many of them failed.
        var timeline: [Int]
        var failuresTimeline: [Int]

        enum CodingKeys: String, CodingKey {
            case timeline
            case attemptsPerS = "attempts_per_s"
            case failuresTimeline = "failures_timeline"
        }
    }
}
