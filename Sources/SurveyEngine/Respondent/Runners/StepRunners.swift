/// The registry of the kinds of step: what a plan's `runs` may say, and what the docs list.
extension JourneyStep.Runs {
    /// survey-bot's kinds, in the order the docs list them. A new kind: its runner's file (the
    /// runner, its `Runs` value and doc), a line here, and its words in docs/plan-format.md.
    static let builtIn: [JourneyStep.Runs] = [.once, .perQuestion, .perSurvey, .perPage]

    /// The kinds a plan may name (`init(rawValue:)`, `allCases`): `builtIn`, and in a test more,
    /// for as long as it says (`JourneyStep.Runs.$registered.withValue(…)`).
    @TaskLocal static var registered: [JourneyStep.Runs] = builtIn
}
