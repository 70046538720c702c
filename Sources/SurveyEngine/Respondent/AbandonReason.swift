/// Why a respondent stopped before the end of the survey.
public enum AbandonReason: String, Sendable, Hashable, CaseIterable, Comparable {
    /// The questions never came, after every retry.
    case questionsUnavailable = "questions_unavailable"
    /// The questions could not be asked for: this process ran out of descriptors or local
    /// ports (`ErrorKind.localResource`) on the last attempt. Not the server's doing.
    case localResource = "local_resource"
    /// The run was interrupted (Ctrl-C, SIGTERM). A respondent stopped by the run's duration
    /// is not abandoned but cut short (`RespondentResult.Ending.cutShort`).
    case interrupted
    /// The login (`SurveyAPI.login`) still failed after its retries.
    case loginFailed = "login_failed"
    /// The login succeeded but a capture (`SurveyAPI.captures`) found nothing usable: its
    /// attempt's detail names the capture.
    case captureNotFound = "capture_not_found"

    /// By raw value, so that reports list the reasons in a fixed order.
    public static func < (lhs: AbandonReason, rhs: AbandonReason) -> Bool { lhs.rawValue < rhs.rawValue }
}
