import SurveyJourney

/// Why a respondent stopped before the end of the survey, by the name reports give it.
///
/// The name is kept behind one reference: a respondent's result holds a reason in the frames
/// every thinking respondent keeps, where a string's two words would cost a slab of memory
/// per respondent.
public struct AbandonReason: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name in reports: `questions_unavailable`, `login_failed`.
    public var rawValue: String { name.text }

    private let name: Name

    private final class Name: Sendable {
        package let text: String
        init(_ text: String) { self.text = text }
    }

    private init(_ rawValue: String) {
        name = Name(rawValue)
    }

    /// Equal by name.
    public static func == (lhs: AbandonReason, rhs: AbandonReason) -> Bool { lhs.rawValue == rhs.rawValue }
    /// By name.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// A reason by its name in a report: one of `known`, or `<step>_failed`; nil for another.
    public init?(rawValue: String) {
        guard
            Self.known.contains(where: { $0.rawValue == rawValue })
                || rawValue.hasSuffix(Self.failedSuffix) && rawValue.count > Self.failedSuffix.count
        else { return nil }
        self.init(rawValue)
    }

    /// The questions never came, after every retry.
    public static let questionsUnavailable = AbandonReason("questions_unavailable")
    /// The respondent could not go on: this process ran out of descriptors or local ports
    /// (`ErrorKind.localResource`) on a step's last attempt. Not the server's doing.
    public static let localResource = AbandonReason("local_resource")
    /// The run was interrupted (Ctrl-C, SIGTERM). A respondent stopped by the run's duration
    /// is not abandoned but cut short (`RespondentResult.Ending.cutShort`).
    public static let interrupted = AbandonReason("interrupted")
    /// A step's call succeeded but a capture found nothing usable: its attempt's detail names
    /// the capture.
    public static let captureNotFound = AbandonReason("capture_not_found")
    /// A page loop posted its last page (`JourneyStep.pages`) and was still given questions.
    public static let pageLimit = AbandonReason("page_limit")
    /// The login (`SurveyAPI.login`) still failed after its retries.
    public static let loginFailed = failed(.login)

    /// A step that runs once still failed after its retries: `<step>_failed`.
    public static func failed(_ step: Step) -> AbandonReason {
        AbandonReason(step.name + failedSuffix)
    }

    private static let failedSuffix = "_failed"

    /// The reasons every journey may report, in the order reports list them.
    public static let known: [AbandonReason] = [
        .captureNotFound, .interrupted, .localResource, .loginFailed, .pageLimit, .questionsUnavailable,
    ]

    /// By name, so that reports list the reasons in a fixed order.
    public static func < (lhs: AbandonReason, rhs: AbandonReason) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The name.
    public var description: String { rawValue }
}

extension JourneyStep {
    /// Why a respondent is abandoned when this step, run once, still fails after its retries:
    /// the questions never came for a step that reads them, `<step>_failed` otherwise.
    package var abandonReason: AbandonReason {
        questions != nil ? .questionsUnavailable : .failed(step)
    }
}
