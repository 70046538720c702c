/// A respondent's claim on connections of its own (`connections: per_respondent`): what one
/// phone running the app is to the server. The walk makes one per respondent, puts it on each of
/// the respondent's requests (`HTTPRequest.Scope.respondent`) and gives it back when the
/// respondent leaves (`Transport.release`); which connections it stands for is the transport's
/// affair, kept in `held`, opaque to the walk.
public final class ConnectionAffinity: @unchecked Sendable {
    /// The run's cutoff, which the respondent's requests carry through it.
    let cutoff: RunCutoff
    /// The respondent's own proxy (a data feed's `proxy` column), in place of the run's. Set
    /// before its first request, read by the transport after.
    package var proxy: HTTPProxy?
    /// What the transport keeps for the respondent (the HTTP client's `Device`): made with its
    /// first request, then touched only on the thread of the loop its connections live on.
    package var held: AnyObject?

    /// A respondent's claim, its requests cut at the run's `cutoff`.
    package init(cutoff: RunCutoff) {
        self.cutoff = cutoff
    }
}
