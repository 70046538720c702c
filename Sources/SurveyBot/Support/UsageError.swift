/// A command-line mistake: what was wrong, shown with `Error:`, the usage line and a hint.
struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
