import SurveyEngine
import SurveyWire

/// A server of survey-bot's bound to every interface (`0.0.0.0`, `::`): `run --metrics-listen
/// 0:9464`, `serve --host ::`. Anyone who can reach the host can connect to it, so it is said
/// on stderr, even with `--quiet`, as `--insecure` is.
enum WildcardBind {
    /// The warning for a server listening at `address`, set by `option`; nil for an address
    /// that is not every interface's.
    static func warning(_ address: SocketAddress, option: String) -> String? {
        guard address.isUnspecified else { return nil }
        return "warning: \(option) \(address) listens on every interface of this host: anyone who can reach it can connect; "
            + "give 127.0.0.1 (or one interface's address) unless that is meant"
    }
}
