/// SurveyEngine: the HTTP engine, virtual respondents, retries, load models and metrics of
/// survey-bot. It knows nothing of files, plans or terminals; SurveyBot drives it.
public enum SurveyEngine {
    /// The tool's version, recorded in every report.
    public static let version = "0.1.0"
}
