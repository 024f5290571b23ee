import ModelFormat

/// The values a graph conversion holds in constants it made (folded
/// results, value lists a file compacted), kept under
/// `GraphConstant.maximumMadeTotal`: many made constants, each under
/// `maximumMadeCount`, must not add up to gigabytes either. One budget
/// for TensorFlow and ONNX.
public struct MadeValues {
    public private(set) var total = 0

    public init() {}

    /// What the conversion may still make.
    public var remaining: Int { GraphConstant.maximumMadeTotal - total }

    /// Counts `constant`'s values held in memory (none for a payload left
    /// in the mapped file).
    /// - Throws: `ModelError` when the total passes the budget.
    public mutating func add(_ constant: GraphConstant) throws(ModelError) {
        total += constant.madeCount
        guard total <= GraphConstant.maximumMadeTotal else {
            throw ModelError("the constants made so far hold \(total) values, more than \(GraphConstant.maximumMadeTotal) in all")
        }
    }
}
