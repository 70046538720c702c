/// A binary min-heap of timers by due; ties fire in the order they were scheduled.
struct TimerHeap {
    struct Entry {
        var due: UInt64
        var sequence: UInt64
        var action: () -> Void
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    var earliestDue: UInt64? { entries.first?.due }

    mutating func push(due: UInt64, action: @escaping () -> Void) {
        entries.append(Entry(due: due, sequence: nextSequence, action: action))
        nextSequence &+= 1
        siftUp(entries.count - 1)
    }

    /// Removes and returns the earliest timer if it is due at `now`.
    mutating func popDue(now: UInt64) -> Entry? {
        guard let first = entries.first, first.due <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (entries[a], entries[b])
        return x.due != y.due ? x.due < y.due : x.sequence < y.sequence
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count && less(left, smallest) { smallest = left }
            if right < entries.count && less(right, smallest) { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
