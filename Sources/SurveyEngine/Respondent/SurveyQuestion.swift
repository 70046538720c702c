/// One question of the survey, as `GET /questions` lists it.
public struct SurveyQuestion: Sendable, Hashable {
    /// The question's id, unique within a list: what a submit names and `AnswerBook` keys on.
    public var id: Int
    var text: String

    /// A question with its id and wording.
    public init(id: Int, text: String) {
        self.id = id
        self.text = text
    }

    /// Why a questions body breaks the survey contract. A respondent that receives such a body
    /// counts the attempt as `malformed_response`.
    public struct ContractError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, as a phrase to follow a colon: `question 3 has no integer 'id'`.
        public var description: String
    }

    /// Where the questions are in a response, and what their fields are called: the survey
    /// contract by default, a look-alike backend's names otherwise.
    public struct Shape: Sendable, Hashable {
        /// The names of the nested fields that lead to the list; empty for the top level.
        public var list: [String]
        /// The field holding a question's integer id.
        public var id: String
        /// The field holding a question's text.
        public var text: String

        /// A shape; the defaults are the survey contract.
        public init(list: [String] = [], id: String = "id", text: String = "question") {
            self.list = list
            self.id = id
            self.text = text
        }

        /// The survey contract: `[{"id": 1, "question": "…"}, …]`.
        public static let contract = Shape()
    }

    /// Reads the survey contract: a non-empty JSON array of objects with an integer `id`
    /// (unique) and a string `question`; other fields are ignored. With another `shape`, the
    /// array is found and its fields named as that says.
    public static func list(from body: some Collection<UInt8>, shape: Shape = .contract) -> Result<[SurveyQuestion], ContractError> {
        var value: JSONValue
        switch JSONValue.parse(body) {
        case .success(let parsed): value = parsed
        case .failure(let error): return .failure(ContractError(description: "the questions are not JSON: \(error)"))
        }
        for (depth, name) in shape.list.enumerated() {
            guard let inner = value[name] else {
                let path = shape.list[...depth].joined(separator: ".")
                return .failure(ContractError(description: "the questions response has no '\(path)'"))
            }
            value = inner
        }
        guard case .array(let items) = value else { return .failure(ContractError(description: "the questions are not a JSON array")) }
        guard !items.isEmpty else { return .failure(ContractError(description: "the questions list is empty")) }
        var questions: [SurveyQuestion] = []
        questions.reserveCapacity(items.count)
        var seen = Set<Int>()
        for (index, item) in items.enumerated() {
            guard case .integer(let id)? = item[shape.id] else {
                return .failure(ContractError(description: "question \(index + 1) has no integer '\(shape.id)'"))
            }
            guard case .string(let text)? = item[shape.text] else {
                return .failure(ContractError(description: "question \(index + 1) has no string '\(shape.text)'"))
            }
            guard seen.insert(id).inserted else { return .failure(ContractError(description: "question id \(id) appears twice")) }
            questions.append(SurveyQuestion(id: id, text: text))
        }
        return .success(questions)
    }

    /// The JSON array `GET /questions` answers with: `[{"id":1,"question":"…"},…]`, in the
    /// order given, which `list(from:)` reads back.
    public static func json(_ questions: [SurveyQuestion]) -> String {
        "[" + questions.map { "{\"id\":\($0.id),\"question\":\(JSONValue.quoted($0.text))}" }.joined(separator: ",") + "]"
    }
}
