/// How respondents take the rows of a data feed.
public enum DataOrder: String, Sendable, Hashable, CaseIterable {
    /// Row after row, starting again at the first when they run out.
    case sequential
    /// A row drawn for each respondent (seeded), rows repeating.
    case random
    /// Row after row, each at most once: when they run out, no new respondent starts.
    case unique
}

/// A data feed: one row per respondent, each row's values by column. The engine reads no
/// files: the rows arrive as values, checked by their reader.
public struct RespondentData: Sendable, Hashable {
    /// The column names, in the rows' order.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[String]]
    /// How respondents take the rows.
    public var order: DataOrder

    /// A feed of `rows` under `columns`, taken in `order`.
    public init(columns: [String], rows: [[String]], order: DataOrder = .sequential) {
        self.columns = columns
        self.rows = rows
        self.order = order
    }

    /// The prefix of columns that answer a question: `answer.3` answers question 3, `answer.q1`
    /// question `q1`.
    public static let answerPrefix = "answer."

    /// The columns named `answer.<id>`: question id → column index.
    public var answerColumns: [QuestionID: Int] {
        var columnsByID: [QuestionID: Int] = [:]
        for (index, name) in columns.enumerated() where name.hasPrefix(Self.answerPrefix) {
            let id = name.dropFirst(Self.answerPrefix.count)
            if !id.isEmpty { columnsByID[QuestionID(String(id))] = index }
        }
        return columnsByID
    }

    /// The row that respondent `number` (across shards) takes in `shard`, or nil when it gets
    /// none: the shard has no rows, or the rows ran out (`unique`).
    ///
    /// Each shard takes its own rows — those whose index is i−1 modulo n — so that shards never
    /// share a row; a respondent's row depends on its number only (and the seed, for `random`).
    public func row(forRespondent number: Int, shard: Shard = .whole, seed: UInt64) -> Int? {
        let shardRows = shard.count(of: rows.count)
        guard shardRows > 0 else { return nil }
        let nth = number / shard.count
        let local: Int
        switch order {
        case .sequential: local = nth % shardRows
        case .unique:
            guard nth < shardRows else { return nil }
            local = nth
        case .random:
            var random = SplitMix64.derived(seed: seed ^ 0xDA7A_F33D, stream: UInt64(number))
            local = Int(random.next() % UInt64(shardRows))
        }
        return local * shard.count + (shard.index - 1)
    }
}

extension RespondentData {
    /// A value of a row that cannot go where the API uses it.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The row's index in `rows`, from 0.
        public var row: Int
        /// The column's name.
        public var column: String
        /// What is wrong, without the value (a secret): "column 'token' holds a line feed (\n),
        /// which cannot go in the header Authorization".
        public var description: String
    }

    /// Every value that cannot go where the run's requests use its column, at most `limit` of them: a
    /// header value takes no control character but a tab (a path takes anything, percent-encoded;
    /// a JSON body anything, escaped). Checked before the run starts, so that no row can
    /// smuggle a header or end a head early.
    public func problems(for configuration: RunConfiguration, limit: Int = 20) -> [Problem] {
        var headerColumns: [(column: Int, header: String)] = []
        for header in configuration.api.headers + configuration.journey.steps.flatMap(\.headers) {
            guard let template = try? TextTemplate(parsing: header.value) else { continue }
            for case .row(let name) in template.variables {
                if let column = columns.firstIndex(of: name) { headerColumns.append((column, header.name)) }
            }
        }
        guard !headerColumns.isEmpty else { return [] }
        var problems: [Problem] = []
        for (index, row) in rows.enumerated() {
            for (column, header) in headerColumns where column < row.count {
                guard let bad = row[column].unicodeScalars.first(where: { HTTPSyntax.isControl($0) && $0 != "\t" }) else { continue }
                problems.append(
                    Problem(
                        row: index, column: columns[column],
                        description:
                            "column '\(columns[column])' holds \(HTTPSyntax.describe(bad)), which cannot go in the header \(header)"
                    ))
                if problems.count >= limit { return problems }
            }
        }
        return problems
    }
}
