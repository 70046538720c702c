/// A value per step, in the journey's order — each step's figures, its retry policy — in one
/// array: looking a step up scans a few names, and a value is changed in place (`_modify`), so
/// that recording an attempt never copies a step's histograms.
///
/// A step the table does not have reads as `initial`, and is added after the others, in the
/// order first met, when it is changed.
public struct StepTable<Value: Sendable>: Sendable {
    /// The steps, in the journey's order, then any step first met later.
    public var steps: [Step] { _steps }
    /// Each step's value, in the order of `steps`.
    public var values: [Value] { _values }
    // Stored under names of their own so that the inlinable subscript can reach them: the table
    // is generic, and SurveyMetrics and SurveyEngine change it four times an attempt; an opaque
    // call from there looked up `[Value]`'s metadata at run time each time (+10% of the client's
    // instructions over plain http, measured with callgrind).
    @usableFromInline var _steps: [Step]
    @usableFromInline var _values: [Value]
    /// The value of a step not in the table yet.
    @usableFromInline let initial: Value

    /// A table of `steps`, in that order, each starting at `initial`.
    @inlinable
    public init(_ steps: [Step] = [], initial: Value) {
        _steps = steps
        _values = Array(repeating: initial, count: steps.count)
        self.initial = initial
    }

    /// The value of `step`; `initial` when the table does not have it.
    @inlinable
    public subscript(step: Step) -> Value {
        get {
            guard let position = _steps.firstIndex(of: step) else { return initial }
            return _values[position]
        }
        _modify {
            let position = _steps.firstIndex(of: step) ?? add(step)
            yield &_values[position]
        }
        set {
            let position = _steps.firstIndex(of: step) ?? add(step)
            _values[position] = newValue
        }
    }

    /// Each step with its value, in order.
    public var entries: Zip2Sequence<[Step], [Value]> { zip(steps, values) }

    @usableFromInline
    mutating func add(_ step: Step) -> Int {
        _steps.append(step)
        _values.append(initial)
        return _steps.count - 1
    }
}

/// Figures that add up: counted in parts (lanes, shards, intervals) and merged, exactly, into
/// the whole.
package protocol Mergeable {
    /// Adds another part's figures.
    mutating func merge(_ other: Self)
}

extension StepTable where Value: Mergeable {
    /// Adds `other`'s values step by step; a step only `other` has comes after this table's own.
    package mutating func merge(_ other: StepTable) {
        for (step, value) in other.entries { self[step].merge(value) }
    }
}

extension StepTable: Equatable where Value: Equatable {
    /// The same value for every step, whatever order the tables keep them in; a step one table
    /// lacks counts as `initial` there. Parts counted apart (lanes that met the steps in another
    /// order) are equal when their figures are.
    public static func == (lhs: StepTable, rhs: StepTable) -> Bool {
        lhs.entries.allSatisfy { step, value in value == rhs[step] } && rhs.entries.allSatisfy { step, value in value == lhs[step] }
    }
}

extension StepTable: Hashable where Value: Hashable {
    /// Consistent with `==`: neither the order of the steps nor a step at `initial` changes it.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for (step, value) in entries where value != initial {
            var entry = Hasher()
            entry.combine(step)
            entry.combine(value)
            combined &+= entry.finalize()
        }
        hasher.combine(combined)
    }
}
