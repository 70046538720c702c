/// The rows of a data feed, compact: every value's bytes in one buffer, each value ended by a
/// NUL byte, row after row, and where each row starts. A million rows of four columns take the
/// bytes of their values plus four bytes a row, not a `String` per value; a row's values are
/// made when a respondent takes it (`subscript`).
///
/// A value holds no NUL byte: the data file's reader refuses one, and `init(_:)` checks it.
public struct DataRows: Sendable, Hashable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The values' bytes, each followed by a NUL byte.
    private var bytes: [UInt8]
    /// Where each row's first value starts in `bytes`. 32 bits: a feed is at most 4 GiB.
    private var starts: [UInt32]
    /// The values of every row.
    public let columnCount: Int

    /// Rows already laid out: `bytes` holds each row's `columnCount` values in order, each
    /// followed by a NUL byte and holding none, and row `i` starts at `starts[i]`. The data
    /// file's reader makes them in place of the file's bytes, without a copy.
    ///
    /// - Precondition: `bytes.count` < 4 GiB, and the layout is as described (checked only in
    ///   debug builds: the reader has made it so).
    public init(bytes: [UInt8], starts: [UInt32], columnCount: Int) {
        precondition(bytes.count <= Int(UInt32.max), "a data feed is at most 4 GiB")
        assert(starts.isEmpty || bytes.lazy.filter { $0 == 0 }.count == starts.count * columnCount, "a row of another width")
        self.bytes = bytes
        self.starts = starts
        self.columnCount = columnCount
    }

    /// Rows of values, each with the same number of values.
    ///
    /// - Precondition: every row has as many values as the first, and no value holds a NUL.
    public init(_ rows: [[String]]) {
        columnCount = rows.first?.count ?? 0
        var bytes: [UInt8] = []
        var starts: [UInt32] = []
        starts.reserveCapacity(rows.count)
        for row in rows {
            precondition(row.count == columnCount, "a row of \(row.count) values among rows of \(columnCount)")
            starts.append(UInt32(bytes.count))
            for value in row {
                precondition(!value.utf8.contains(0), "a data value holds a NUL byte")
                bytes.append(contentsOf: value.utf8)
                bytes.append(0)
            }
            precondition(bytes.count <= Int(UInt32.max), "a data feed is at most 4 GiB")
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// Rows written out, as tests write them: `[["m1", "blue"], ["m2", "red"]]`.
    public init(arrayLiteral rows: [String]...) {
        self.init(rows)
    }

    /// The index of the first row: 0.
    public var startIndex: Int { 0 }
    /// One past the last row: the number of rows.
    public var endIndex: Int { starts.count }

    /// The values of row `index`, made now.
    public subscript(index: Int) -> [String] {
        var values: [String] = []
        values.reserveCapacity(columnCount)
        forEachValue(ofRow: index) { values.append(String(decoding: $0, as: UTF8.self)) }
        return values
    }

    /// Value `column` of row `row`, made now.
    public func value(row: Int, column: Int) -> String {
        var result = ""
        var index = 0
        forEachValue(ofRow: row) { value in
            if index == column { result = String(decoding: value, as: UTF8.self) }
            index += 1
        }
        return result
    }

    /// Calls `body` with each value's bytes of row `index`, in order, without copying them.
    public func forEachValue(ofRow index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let start = Int(starts[index])
        let end = index + 1 < starts.count ? Int(starts[index + 1]) : bytes.count
        bytes.withUnsafeBufferPointer { all in
            var from = start
            var at = start
            while at < end {
                if all[at] == 0 {
                    body(UnsafeBufferPointer(rebasing: all[from..<at]))
                    from = at + 1
                }
                at += 1
            }
        }
    }

    /// Only the rows `keep` says yes to, in order, in buffers of their own size: what is left
    /// out is released with this value.
    public func keepingRows(where keep: (Int) -> Bool) -> DataRows {
        var kept: [UInt8] = []
        var keptStarts: [UInt32] = []
        var size = 0
        var count = 0
        for row in indices where keep(row) {
            size += rowEnd(row) - Int(starts[row])
            count += 1
        }
        kept.reserveCapacity(size)
        keptStarts.reserveCapacity(count)
        for row in indices where keep(row) {
            keptStarts.append(UInt32(kept.count))
            kept.append(contentsOf: bytes[Int(starts[row])..<rowEnd(row)])
        }
        return DataRows(bytes: kept, starts: keptStarts, columnCount: columnCount)
    }

    private func rowEnd(_ row: Int) -> Int {
        row + 1 < starts.count ? Int(starts[row + 1]) : bytes.count
    }
}
