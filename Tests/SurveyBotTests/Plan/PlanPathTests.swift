import SurveyJourney
import Testing

@testable import SurveyBot

/// The paths the checks between keys look up are paths of the key tables: a misspelt one would
/// make its check never fire, and no diagnostic test would notice it missing.
@Suite struct PlanPathTests {
    @Test func everyFixedPathIsAKeyOfThePlanFormat() {
        let paths = Set(PlanKeys.all.map(\.path))
        let unknown = PlanPath.all.map(\.text).filter { !paths.contains($0) }
        #expect(unknown.isEmpty, "not keys of PlanKeys.all: \(unknown)")
        #expect(Set(PlanPath.all).count == PlanPath.all.count, "a path is listed twice")
    }

    @Test func retryPathsAreKeysOfTheRetryBlocksTheyName() {
        let paths = Set(PlanKeys.all.map(\.path))
        for step in Journey.defaultSteps {
            #expect(paths.contains(PlanPath.retryBlock(step).text), "\(step)")
            for key in ["initial", "max"] {
                let path = PlanPath.retry(step, key, declared: false).text
                #expect(paths.contains(path), "\(path)")
            }
        }
        let stepPaths = Set(JourneyKeys.keys(Step("open"), at: 0).map(\.path))
        for key in ["initial", "max"] {
            let path = PlanPath.retry(Step("open"), key, declared: true).text
            #expect(stepPaths.contains(path), "\(path) among \(stepPaths.sorted())")
        }
    }

    /// The check a path serves fires: a delay cap under the first delay of a declared step's retry.
    @Test func aRetryCheckFindsTheDeclaredStepsKeys() {
        let errors = expectErrors(
            lines(
                "target: http://127.0.0.1:9",
                "journey:",
                "  open:",
                "    request: GET /survey",
                "    retry:",
                "      initial: 2s",
                "      max: 1s"))
        #expect(
            errors.contains { $0.message.contains("'journey.open.retry.initial' (2s) is more than 'journey.open.retry.max' (1s)") },
            "\(errors)")
    }
}
