import SurveyWire

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
/// files: the rows arrive as values, checked by their reader, and kept compact (`DataRows`).
public struct RespondentData: Sendable, Hashable {
    /// The column names, in the rows' order.
    public var columns: [String]
    /// The rows, each with one value per column: all of the feed's, or one shard's share
    /// (`share`). Set with the feed, so that `totalRows` stays true.
    public private(set) var rows: DataRows
    /// How respondents take the rows.
    public var order: DataOrder
    /// The shard whose share of the feed `rows` holds — rows i−1, i−1+n, i−1+2n… of the feed —
    /// or `.whole` when it holds every row (`share(for:)`).
    public private(set) var share: Shard = .whole
    /// The feed's rows, every shard's together.
    public private(set) var totalRows: Int

    /// A feed of `rows` under `columns`, taken in `order`.
    public init(columns: [String], rows: DataRows, order: DataOrder = .sequential) {
        self.columns = columns
        self.rows = rows
        self.order = order
        totalRows = rows.count
    }

    /// A feed of `rows` under `columns`, taken in `order`.
    public init(columns: [String], rows: [[String]], order: DataOrder = .sequential) {
        self.init(columns: columns, rows: DataRows(rows), order: order)
    }

    /// Only the rows respondents of `shard` can take (every order gives a shard only its own
    /// share of rows: `row(forRespondent:shard:seed:)`), so that a shard's run holds 1/n of the
    /// feed. The whole feed for `.whole`.
    ///
    /// - Precondition: the feed holds every row.
    public func share(for shard: Shard) -> RespondentData {
        precondition(share == .whole, "the feed holds shard \(share)'s share already")
        guard shard != .whole else { return self }
        var data = self
        data.rows = rows.keepingRows { $0 % shard.count == shard.index - 1 }
        data.share = shard
        return data
    }

    /// The row of the feed that `rows[index]` is.
    public func feedRow(_ index: Int) -> Int {
        index * share.count + share.index - 1
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

    /// The index in `rows` of the row that respondent `number` (across shards) takes in
    /// `shard`, or nil when it gets none: the shard has no rows, or the rows ran out (`unique`).
    ///
    /// Each shard takes its own rows — those whose index in the feed is i−1 modulo n — so that
    /// shards never share a row; a respondent's row depends on its number only (and the seed, for
    /// `random`).
    ///
    /// - Precondition: the feed holds every row, or `shard`'s share.
    public func row(forRespondent number: Int, shard: Shard = .whole, seed: UInt64) -> Int? {
        precondition(share == .whole || share == shard, "the feed holds shard \(share)'s rows, not \(shard)'s")
        let shardRows = shard.count(of: totalRows)
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
        return share == shard ? local : local * shard.count + (shard.index - 1)
    }
}

extension RespondentData {
    /// A value of a row that cannot go where the API uses it.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The row's index in the feed (every shard's rows), from 0.
        public var row: Int
        /// The column's name.
        public var column: String
        /// What is wrong, without the value (a secret): "column 'token' holds a line feed (\n),
        /// which cannot go in the header Authorization".
        public var description: String

        /// A problem of `column` in row `row`, told by `description`.
        package init(row: Int, column: String, description: String) {
            self.row = row
            self.column = column
            self.description = description
        }
    }

    /// The first control character but a tab in a value's UTF-8 bytes, if any: a control
    /// character (`HTTPSyntax.isControl`) is one byte in UTF-8, and no byte of a longer
    /// character is one.
    package static func firstControl(in value: UnsafeBufferPointer<UInt8>) -> Unicode.Scalar? {
        value.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }.map { Unicode.Scalar($0) }
    }
}
