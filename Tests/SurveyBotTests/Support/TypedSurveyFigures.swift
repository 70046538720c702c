import Testing

@testable import SurveyBot

/// The typed survey's per-question figures in a report against what the reference server
/// counted, whatever shape served it: the same questions, each shown as often as the server
/// showed it and every time answered or declined (never skipped), and its answers the server's —
/// free text one bucket on each side, a multiple choice's combinations split into the choices
/// the server counts one by one.
func expectTypedFiguresAreTheServers(
    _ questions: [String: RunReport.Question], _ stats: ReferenceServerStats, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    #expect(Set(questions.keys) == Set(stats.shownByQuestion.keys), sourceLocation: sourceLocation)
    for (id, figures) in questions {
        #expect(figures.shown == stats.shownByQuestion[id], "\(id) shown", sourceLocation: sourceLocation)
        #expect(
            figures.answered + figures.declined == figures.shown && figures.skippedNoAnswer == 0, "\(id)", sourceLocation: sourceLocation)
        let stored = stats.answersByQuestion[id] ?? [:]
        switch id {
        case "q4", "q5":
            #expect(
                figures.answers == ["(words)": figures.answered] && stored == ["(text)": figures.answered], "\(id)",
                sourceLocation: sourceLocation)
        case "q2", "q7":
            var chosen: [String: Int] = [:]
            for (answer, count) in figures.answers {
                for choice in answer.split(separator: ",") { chosen[String(choice), default: 0] += count }
            }
            #expect(chosen == stored, "\(id)", sourceLocation: sourceLocation)
        default:
            #expect(figures.answers == stored, "\(id)", sourceLocation: sourceLocation)
        }
    }
}
