/// How a threshold's figures read: in its metric's unit, or `no samples`.
extension Readable {
    /// A value in the unit of a threshold's metric.
    static func value(_ value: Double, unit: Threshold.Metric.Unit) -> String {
        switch unit {
        case .latency: ms(value)
        case .ratio: percent(value)
        case .perSecond: perSecond(value)
        case .count: number(value)
        }
    }

    /// What a threshold measured, or `no samples`.
    static func actual(_ result: ThresholdResult) -> String {
        result.actual.map { value($0, unit: result.threshold.metric.unit) } ?? "no samples"
    }
}
