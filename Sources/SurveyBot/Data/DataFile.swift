import SurveyEngine

/// A data feed's file as a plan read it: where it is, how it is shown, the line each row starts
/// on (for errors), and a hash of its bytes (for the plan digest). Its rows go to the engine
/// as `RespondentData`; its values are secrets, never shown.
struct DataFile: Sendable, Hashable {
    /// The path the file was read from: relative paths resolved against the plan's folder.
    var path: String
    /// The path as shown: as the plan wrote it, `${NAME}` for parts from the environment.
    var shownPath: String
    /// The path as errors name it: as read, or as shown when any of it came from the environment.
    var errorPath: String
    /// The line each row starts on, from 1 (32 bits: a feed's rows take little beside their values).
    var lines: [UInt32]
    /// `sha256:` and the hexadecimal SHA-256 of the file's bytes.
    var digest: String

    /// Where `written` is, read from the plan at `planPath`: an absolute path as it is, a
    /// relative one from the plan's folder.
    static func resolve(_ written: String, planPath: String) -> String {
        if written.hasPrefix("/") { return written }
        guard let slash = planPath.lastIndex(of: "/") else { return written }
        return String(planPath[...slash]) + written
    }
}
