/// The documents of the `html` shape: each page of a survey as a browser shows it — one form
/// posting back to `/survey` with a CSRF token and the page's key as hidden inputs, a block per
/// question with its inputs by kind — and the "thank you" page after the last.
enum HTMLSurveyPage {
    /// The hidden input that carries the session's CSRF token.
    static let csrfField = "csrf_token"
    /// The hidden input that carries the page's key, new for every page given (LimeSurvey's
    /// `LEMpostKey`).
    static let keyField = "page_key"
    /// The submit button's name: `next`, or `submit` on the last page.
    static let moveField = "move"

    /// What goes into one page's form besides its questions.
    struct Form {
        var csrf: String
        var key: String
        /// The answers given to this page before (when it is given again), by question: each
        /// shown chosen or filled in, as a browser keeps them.
        var given: [String: [String]] = [:]
        /// Why the page is given again; nil the first time.
        var error: String?
    }

    /// Page `index` of `survey` with the questions `shown` to a session there (the branch's
    /// only when its condition holds), in a form.
    static func document(_ survey: TypedSurvey, page index: Int, shown questions: [TypedSurvey.Question], form: Form) -> String {
        let last = index + 1 >= survey.pages.count
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>Survey, page \(index + 1) of \(survey.pages.count)</title></head>
            <body>
            <h1>Survey</h1>
            <p class="progress">Page \(index + 1) of \(survey.pages.count)</p>

            """
        if let error = form.error { html += "<p class=\"error\" role=\"alert\">\(XMLText.escape(error))</p>\n" }
        html += """
            <form method="post" action="/survey">
            <input type="hidden" name="\(csrfField)" value="\(XMLText.escape(form.csrf))">
            <input type="hidden" name="\(keyField)" value="\(XMLText.escape(form.key))">

            """
        for question in questions { html += block(question, given: form.given[question.id] ?? []) }
        html +=
            last
            ? "<button type=\"submit\" name=\"\(moveField)\" value=\"submit\">Submit</button>\n"
            : "<button type=\"submit\" name=\"\(moveField)\" value=\"next\">Next</button>\n"
        return html + "</form>\n</body>\n</html>\n"
    }

    /// The page after the last: no form, no question.
    static let thankYou = """
        <!DOCTYPE html>
        <html lang="en">
        <head><meta charset="utf-8"><title>Thank you</title></head>
        <body>
        <h1>Thank you</h1>
        <p>Your response has been recorded.</p>
        </body>
        </html>

        """

    /// One question's block: its id, its text (a `*` when required), and its inputs by kind —
    /// radio buttons, checkboxes, a number input with its bounds, a text area — each named by
    /// the question's id; `given` are the values to show chosen or filled in.
    private static func block(_ question: TypedSurvey.Question, given: [String]) -> String {
        let id = XMLText.escape(question.id)
        let required = question.required ? " required" : ""
        let mark = question.required ? " <span class=\"required\">*</span>" : ""
        var html = "<div class=\"question\" id=\"question-\(id)\" data-type=\"\(question.kind.rawValue)\">\n"
        switch question.kind {
        case .single, .multiple:
            html += "<p class=\"question-text\" id=\"text-\(id)\">\(XMLText.escape(question.text))\(mark)</p>\n"
            // A required checkbox would be one that must be ticked: only radio buttons say it.
            let asked = question.kind == .single ? required : ""
            for choice in question.choices {
                let input = "\(id)-\(XMLText.escape(choice.id))"
                let checked = given.contains(choice.id) ? " checked" : ""
                html +=
                    "<input type=\"\(question.kind.input)\" name=\"\(id)\" id=\"\(input)\" value=\"\(XMLText.escape(choice.id))\"\(asked)\(checked)>"
                    + "<label for=\"\(input)\">\(XMLText.escape(choice.label))</label>\n"
            }
        case .number:
            html += "<label class=\"question-text\" id=\"text-\(id)\" for=\"\(id)\">\(XMLText.escape(question.text))\(mark)</label>\n"
            let value = given.first.map { " value=\"\(XMLText.escape($0))\"" } ?? ""
            html +=
                "<input type=\"number\" name=\"\(id)\" id=\"\(id)\" min=\"\(question.bounds.lowerBound)\" "
                + "max=\"\(question.bounds.upperBound)\" step=\"1\"\(value)\(required)>\n"
        case .text:
            html += "<label class=\"question-text\" id=\"text-\(id)\" for=\"\(id)\">\(XMLText.escape(question.text))\(mark)</label>\n"
            html += "<textarea name=\"\(id)\" id=\"\(id)\" rows=\"3\"\(required)>\(XMLText.escape(given.first ?? ""))</textarea>\n"
        }
        return html + "</div>\n"
    }
}
