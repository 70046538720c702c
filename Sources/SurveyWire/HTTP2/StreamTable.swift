/// The open streams of one HTTP/2 connection, by stream id: what `[UInt32: Value]` would hold,
/// without hashing. A response looks its stream up two or three times, and SipHash and the
/// dictionary's generic paths cost more than the rest of the lookup.
///
/// The streams lie side by side in `entries`, their ids in `entryIDs`; `slots` says where each
/// lies. Stream ids of one end share a parity and come in order, so `id / 2` modulo the number
/// of slots (a power of two, doubled before they are half taken) gives the streams open at once
/// slots of their own — unless one stream stays open while more than that many others come and
/// go: a stream whose slot is taken is left out of `slots` (`unslotted` counts them), and found
/// by a look along `entryIDs`. A lookup is one comparison; a stream is changed where it lies in
/// `entries`, an array element like any other; a removal moves the last entry into the gap.
///
/// Order is neither the ids' nor the arrivals': callers that need an order sort the `keys`.
struct StreamTable<Value>: Sequence {
    /// Where a stream lies, from `index(forKey:)`; valid until the table next changes.
    struct Index: Equatable {
        fileprivate let position: Int
    }

    /// The ids of `entries`, position for position.
    private(set) var keys: [UInt32] = []
    private var entries: [Value] = []
    /// By slot, the position in `entries` of the stream it holds, plus one; 0 when free.
    private var slots: [Int32] = []
    /// The streams whose slot another stream held when they came.
    private var unslotted = 0

    init() {}

    /// The streams in the table.
    var count: Int { entries.count }

    var isEmpty: Bool { entries.isEmpty }

    /// The slot stream `id` belongs in.
    @inline(__always)
    private func home(_ id: UInt32) -> Int { Int(id >> 1) & (slots.count - 1) }

    /// Where the stream `id` lies, if it is in the table.
    func index(forKey id: UInt32) -> Index? {
        guard !entries.isEmpty else { return nil }
        let held = Int(slots[home(id)])
        if held != 0, keys[held - 1] == id { return Index(position: held - 1) }
        guard unslotted > 0, let position = keys.firstIndex(of: id) else { return nil }
        return Index(position: position)
    }

    /// The stream at `index`, changed where it lies.
    subscript(at index: Index) -> Value {
        get { entries[index.position] }
        _modify { yield &entries[index.position] }
    }

    /// The stream `id`, or nil; setting nil removes it.
    subscript(id: UInt32) -> Value? {
        get { index(forKey: id).map { entries[$0.position] } }
        set {
            if let newValue {
                insert(newValue, for: id)
            } else {
                removeValue(forKey: id)
            }
        }
    }

    /// Stores `value` as stream `id`'s, in place of the one it had.
    mutating func insert(_ value: consuming Value, for id: UInt32) {
        if let index = index(forKey: id) {
            entries[index.position] = value
            return
        }
        insertNew(value, for: id)
    }

    /// Stores `value` as the stream `id`'s, a stream not in the table: one this end has just
    /// opened, whose id is past every other it opened. Not looked up first, as `insert` does.
    mutating func insertNew(_ value: consuming Value, for id: UInt32) {
        precondition(id != 0, "stream 0 is the connection's")
        keys.append(id)
        entries.append(value)
        if entries.count * 2 > slots.count {
            grow()
        } else {
            slot(at: entries.count - 1)
        }
    }

    /// Gives the entry at `position` its slot, when free.
    private mutating func slot(at position: Int) {
        let home = home(keys[position])
        if slots[home] == 0 {
            slots[home] = Int32(position + 1)
        } else {
            unslotted += 1
        }
    }

    /// Takes the stream at `index` out; the last entry moves into its place.
    @discardableResult
    mutating func remove(at index: Index) -> Value {
        let position = index.position
        let home = home(keys[position])
        let freed = Int(slots[home]) == position + 1
        if freed {
            slots[home] = 0
        } else {
            unslotted -= 1
        }
        let last = entries.count - 1
        // Moved, not copied: `swapAt` of a generic element copies through a temporary.
        var removed = entries.removeLast()
        let lastID = keys.removeLast()
        if position != last {
            swap(&removed, &entries[position])
            keys[position] = lastID
            let movedHome = self.home(lastID)
            if Int(slots[movedHome]) == last + 1 { slots[movedHome] = Int32(position + 1) }
        }
        // A stream left out of the slot freed takes it.
        if freed, unslotted > 0, let waiting = keys.firstIndex(where: { self.home($0) == home }) {
            slots[home] = Int32(waiting + 1)
            unslotted -= 1
        }
        return removed
    }

    /// Takes the stream `id` out, if it is there.
    @discardableResult
    mutating func removeValue(forKey id: UInt32) -> Value? {
        guard let index = index(forKey: id) else { return nil }
        return remove(at: index)
    }

    /// Empties the table, keeping no storage.
    mutating func removeAll() {
        self = StreamTable()
    }

    /// The ids of the streams whose values `matches`, in no order: each value is read where it
    /// lies, none copied out (as iterating the table would).
    func keys(where matches: (Value) -> Bool) -> [UInt32] {
        var found: [UInt32] = []
        for position in entries.indices where matches(entries[position]) { found.append(keys[position]) }
        return found
    }

    /// The streams and their ids, in no order.
    func makeIterator() -> [(key: UInt32, value: Value)].Iterator {
        entries.indices.map { (keys[$0], entries[$0]) }.makeIterator()
    }

    /// Doubles the slots (2 at first: most connections carry one stream at a time), and gives
    /// each stream its slot again.
    private mutating func grow() {
        slots = Array(repeating: 0, count: Swift.max(2, slots.count * 2))
        unslotted = 0
        for position in entries.indices { slot(at: position) }
    }
}

extension StreamTable: Sendable where Value: Sendable {}
