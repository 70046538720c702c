/// survey-bot's version, at the bottom of the layers because every request's `User-Agent`
/// carries it; the engine's `SurveyEngine.version` and every report repeat it.
public enum ToolVersion {
    /// The version, as `User-Agent: survey-bot/<version>` and reports write it.
    public static let text = "0.1.0"
}
