import SurveyJourney
import SurveyWire

extension RespondentData {
    /// Every value that cannot go where the run's requests use its column, at most `limit` of them: a
    /// header value takes no control character but a tab (a path takes anything, percent-encoded;
    /// a JSON body anything, escaped); the column of each respondent's own proxy
    /// (`RunConfiguration.proxyColumn`) takes a proxy URL or nothing. Checked before the run
    /// starts, so that no row can smuggle a header or end a head early, nor send a respondent
    /// nowhere.
    public func problems(for configuration: RunConfiguration, limit: Int = 20) -> [Problem] {
        var problems = headerProblems(for: configuration, limit: limit)
        guard problems.count < limit, let name = configuration.proxyColumn, let column = columns.firstIndex(of: name) else {
            return problems
        }
        for index in rows.indices where Self.proxy(rows.value(row: index, column: column)) == nil {
            problems.append(
                Problem(
                    row: feedRow(index), column: name,
                    description:
                        "column '\(name)' holds no proxy URL: each respondent's proxy is [http://]host[:port], with "
                        + "user:password@ before the host for credentials, "
                        + "or nothing for none"))
            if problems.count >= limit { break }
        }
        return problems.sorted { $0.row < $1.row }
    }

    /// A respondent's own proxy from its row's value: `.some(nil)` for an empty value (no
    /// proxy), nil for a value that is no proxy URL.
    package static func proxy(_ value: String) -> HTTPProxy?? {
        if value.isEmpty { return .some(nil) }
        guard case .success(let proxy) = HTTPProxy.parse(value) else { return nil }
        return proxy
    }

    private func headerProblems(for configuration: RunConfiguration, limit: Int) -> [Problem] {
        var headerColumns: [(column: Int, header: String)] = []
        for header in configuration.api.headers + configuration.journey.steps.flatMap(\.headers) {
            guard let template = try? TextTemplate(parsing: header.value) else { continue }
            for case .row(let name) in template.variables {
                if let column = columns.firstIndex(of: name) { headerColumns.append((column, header.name)) }
            }
            // `${answer}` in a header: a row's `answer.<id>` cells go there too.
            if template.variables.contains(where: { $0 == .answer || $0 == .answerLabel }) {
                for column in answerColumns.values.sorted() { headerColumns.append((column, header.name)) }
            }
        }
        guard !headerColumns.isEmpty else { return [] }
        var problems: [Problem] = []
        for index in rows.indices {
            var column = 0
            var bad: [(column: Int, scalar: Unicode.Scalar)] = []
            rows.forEachValue(ofRow: index) { value in
                defer { column += 1 }
                guard headerColumns.contains(where: { $0.column == column }), let scalar = Self.firstControl(in: value) else { return }
                bad.append((column, scalar))
            }
            for (column, header) in headerColumns {
                guard let scalar = bad.first(where: { $0.column == column })?.scalar else { continue }
                problems.append(
                    Problem(
                        row: feedRow(index), column: columns[column],
                        description:
                            "column '\(columns[column])' holds \(HTTPSyntax.describe(scalar)), which cannot go in the header \(header)"))
                if problems.count >= limit { return problems }
            }
        }
        return problems
    }
}
