/// An object that remembers where it sits in the one array that holds it, so that it can be
/// taken out in constant time (the busy connections of a pool, the connections of a server).
protocol Slotted: AnyObject {
    /// Its index in the array holding it; -1 when in none.
    var slot: Int { get set }
}

extension Array where Element: Slotted {
    /// Appends `element`, remembering its place.
    mutating func appendSlotted(_ element: Element) {
        element.slot = count
        append(element)
    }

    /// Takes `element` out by moving the last element into its place; false when it was not here.
    @discardableResult
    mutating func removeSlotted(_ element: Element) -> Bool {
        let slot = element.slot
        guard slot >= 0, slot < count, self[slot] === element else { return false }
        let last = removeLast()
        if slot < count {
            self[slot] = last
            last.slot = slot
        }
        element.slot = -1
        return true
    }
}
