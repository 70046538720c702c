import SurveyWire

/// SurveyEngine: the walk of survey-bot — journeys, virtual respondents, retries, load models
/// and metrics — over the wire beneath it (SurveyWire: event loops, TLS, HTTP/1.1, HTTP/2). It
/// knows nothing of files, plans or terminals; SurveyBot drives it.
public enum SurveyEngine {
    /// The tool's version, recorded in every report.
    public static let version = ToolVersion.text
}
