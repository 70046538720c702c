import Testing

@testable import SurveyBot

@Suite struct PlanParserTests {
    private func parse(_ text: String, environment: [String: String] = [:]) -> (PlanNode, [Diagnostic]) {
        PlanParser.parse(text, path: "t.plan", environment: environment)
    }

    private func entries(_ node: PlanNode) -> [PlanEntry] {
        if case .mapping(let entries, _) = node { return entries }
        Issue.record("not a mapping: \(node)")
        return []
    }

    private func scalar(_ node: PlanNode) -> PlanScalar? {
        if case .scalar(let s) = node { return s }
        Issue.record("not a scalar: \(node)")
        return nil
    }

    private func value(_ node: PlanNode, _ path: String...) -> PlanNode? {
        var current = node
        for key in path {
            guard let next = entries(current).first(where: { $0.key == key }) else {
                Issue.record("no key \(key)")
                return nil
            }
            current = next.value
        }
        return current
    }

    @Test func nestsMappingsByIndentation() {
        let (root, errors) = parse(lines("a:", "  b:", "    c: 1", "  d: 2", "e: 3"))
        #expect(errors.isEmpty)
        #expect(scalar(value(root, "a", "b", "c")!)?.text == "1")
        #expect(scalar(value(root, "a", "d")!)?.text == "2")
        #expect(scalar(value(root, "e")!)?.text == "3")
        #expect(entries(root).map(\.key) == ["a", "e"])
    }

    @Test func recordsLineAndColumnOfKeysAndValues() {
        let (root, _) = parse(lines("# comment", "", "outer:", "  inner:   value"))
        let outer = entries(root)[0]
        #expect(outer.keyLocation.line == 3 && outer.keyLocation.column == 1)
        let inner = entries(outer.value)[0]
        #expect(inner.keyLocation.line == 4 && inner.keyLocation.column == 3)
        #expect(inner.value.location.line == 4 && inner.value.location.column == 12)
    }

    @Test func stripsCommentsOutsideQuotesOnly() {
        let (root, errors) = parse(
            lines("a: one # a comment", "b: \"two # not a comment\"", "c: http://x/#frag", "# whole line", "   # indented comment"))
        #expect(errors.isEmpty)
        #expect(scalar(value(root, "a")!)?.text == "one")
        #expect(scalar(value(root, "b")!)?.text == "two # not a comment")
        #expect(scalar(value(root, "c")!)?.text == "http://x/#frag")
    }

    @Test func decodesDoubleQuotedEscapes() {
        let (root, errors) = parse(#"a: "say \"hi\"\\ \n\t end""# + "\n")
        #expect(errors.isEmpty)
        let s = scalar(value(root, "a")!)
        #expect(s?.text == "say \"hi\"\\ \n\t end")
        #expect(s?.isQuoted == true)
    }

    @Test func keepsSingleQuotedTextLiteral() {
        let (root, errors) = parse(lines(#"a: 'it''s \n ${HOME}'"#))
        #expect(errors.isEmpty)
        #expect(scalar(value(root, "a")!)?.text == #"it's \n ${HOME}"#)
    }

    @Test func parsesInlineLists() {
        let (root, errors) = parse(lines(#"a: [x, "y, z", 'w', 5xx ]"#, "b: []"))
        #expect(errors.isEmpty)
        guard case .list(let items, _)? = value(root, "a") else {
            Issue.record("not a list")
            return
        }
        #expect(items.compactMap { scalar($0)?.text } == ["x", "y, z", "w", "5xx"])
        guard case .list(let empty, _)? = value(root, "b") else {
            Issue.record("not a list")
            return
        }
        #expect(empty.isEmpty)
    }

    @Test func parsesBlockListsIndentedAndCompact() {
        let (root, errors) = parse(lines("a:", "  - one", "  - \"two\"", "b:", "- three", "- four", "c: 5"))
        #expect(errors.isEmpty)
        guard case .list(let a, _)? = value(root, "a"), case .list(let b, _)? = value(root, "b") else {
            Issue.record("not lists")
            return
        }
        #expect(a.compactMap { scalar($0)?.text } == ["one", "two"])
        #expect(b.compactMap { scalar($0)?.text } == ["three", "four"])
        #expect(scalar(value(root, "c")!)?.text == "5")
    }

    @Test func parsesListItemsThatAreMappings() {
        let (root, errors) = parse(lines("ramp:", "  - 30s: 50/s", "  - 1m: 10/s", "  - name: x", "    value: y"))
        #expect(errors.isEmpty)
        guard case .list(let items, _)? = value(root, "ramp") else {
            Issue.record("not a list")
            return
        }
        #expect(items.count == 3)
        #expect(entries(items[0]).map(\.key) == ["30s"])
        #expect(scalar(entries(items[1])[0].value)?.text == "10/s")
        #expect(entries(items[2]).map(\.key) == ["name", "value"])
    }

    @Test func substitutesEnvironmentVariables() {
        let environment = ["TOKEN": "abc", "EMPTY": ""]
        let (root, errors) = parse(
            lines("a: Bearer ${TOKEN}", "b: \"x${MISSING:-fallback}y\"", "c: ${EMPTY:-unused}", "d: [${TOKEN}, plain]"),
            environment: environment)
        #expect(errors.isEmpty)
        let a = scalar(value(root, "a")!)
        #expect(a?.text == "Bearer abc")
        #expect(a?.isFromEnvironment == true)
        let b = scalar(value(root, "b")!)
        #expect(b?.text == "xfallbacky")
        #expect(b?.isFromEnvironment == false, "a default is not a secret from the environment")
        #expect(scalar(value(root, "c")!)?.text == "")
        guard case .list(let d, _)? = value(root, "d") else {
            Issue.record("not a list")
            return
        }
        #expect(scalar(d[0])?.isFromEnvironment == true)
        #expect(scalar(d[1])?.isFromEnvironment == false)
    }

    @Test func acceptsCRLFAndLoneCRLineEndings() {
        let (root, errors) = parse("a: 1\r\nb:\r\n  c: 2\rd: 3")
        #expect(errors.isEmpty)
        #expect(scalar(value(root, "b", "c")!)?.text == "2")
        #expect(scalar(value(root, "d")!)?.text == "3")
    }

    @Test func quotedKeysMayHoldSpecialCharacters() {
        let (root, errors) = parse(lines(#""*": any"#, #"'a: b': c"#))
        #expect(errors.isEmpty)
        #expect(entries(root).map(\.key) == ["*", "a: b"])
    }

    @Test func emptyKeyWithoutBlockIsEmpty() {
        let (root, errors) = parse(lines("a:", "b: 1"))
        #expect(errors.isEmpty)
        guard case .empty? = value(root, "a") else {
            Issue.record("expected empty")
            return
        }
    }

    @Test func emptyFileIsAnEmptyMapping() {
        let (root, errors) = parse("")
        #expect(errors.isEmpty)
        #expect(entries(root).isEmpty)
    }

    @Test func parsesAValueForAnOverride() {
        let (node, errors) = PlanParser.parseValue("[400, 5xx]", origin: .option("--set x=[400, 5xx]"), environment: [:])
        #expect(errors.isEmpty)
        guard case .list(let items, _) = node else {
            Issue.record("not a list")
            return
        }
        #expect(items.count == 2)
    }
}
