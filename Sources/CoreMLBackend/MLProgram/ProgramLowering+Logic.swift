import ModelFormat
import CoreMLSchema

/// Comparisons, logic and `where`, as coremltools' iOS15 elementwise_binary.py,
/// elementwise_unary.py and control_flow.py state them: each makes or takes
/// bool tensors, where the IR's values are floats 1 and 0 (any value but 0
/// true). A comparison is `equal`, `not_equal`, `less`, `less_equal`,
/// `greater` or `greater_equal` (of two inputs, broadcast as numpy does, or of
/// one with its alpha); a truth read from a float is `not_equal` to 0 (NaN
/// true, as the IR's); `logical_and`/`or`/`xor`/`not` and `select` take
/// those; every bool result is `cast` to the compute type.
extension ProgramLowering {
    static let comparisons: [Comparison.Kind: String] = [
        .equal: "equal", .notEqual: "not_equal", .less: "less", .lessOrEqual: "less_equal", .greater: "greater", .greaterOrEqual: "greater_equal",
        .and: "logical_and", .or: "logical_or", .xor: "logical_xor", .not: "logical_not",
    ]

    func comparison(_ comparison: Comparison, _ inputs: [String], node: Node, shape: [Int]) -> String {
        let name = node.name, type = Self.comparisons[comparison.kind]!
        let result: String
        if comparison.isComparison {
            let y = inputs.count == 2 ? inputs[1] : program.constant(name + "_alpha", .floats([comparison.alpha]))
            result = program.operation(type, name + "_bool", ["x": inputs[0], "y": y], shape: shape, dataType: Self.bool)
        } else {
            let truths = inputs.enumerated().map { truth($1, name: "\(name)_truth\($0)", shape: self.shape(of: node.inputs[$0])) }
            let operands = zip(["x", "y"], truths).map { ($0, [$1]) }
            result = program.operation(type, name + "_bool", operands, shape: shape, dataType: Self.bool)
        }
        return program.cast(result, toFloat16: program.float16, base: name, shape: shape)
    }

    /// `condition ? x : y`: `select` of the condition's truth. coremltools
    /// infers select's type from `a` and `b` alone, so when they do not
    /// broadcast to the output (the condition is larger), `a` is first
    /// multiplied by ones of the output's shape (exact: NaN, infinities and
    /// -0 stay).
    func select(_ inputs: [String], node: Node, shape: [Int]) -> String {
        let condition = truth(inputs[0], name: node.name + "_truth", shape: self.shape(of: node.inputs[0]))
        var a = inputs[1]
        let (left, right) = (self.shape(of: node.inputs[1]), self.shape(of: node.inputs[2]))
        if ShapeInference.broadcast([TensorShape(left), TensorShape(right)])?.dimensions != shape {
            let ones = program.constant(node.name + "_ones", Weights(Array(repeating: 1, count: shape.reduce(1, *))), shape: shape)
            a = program.operation("mul", node.name + "_a_broadcast", ["x": a, "y": ones], shape: shape)
        }
        return program.operation("select", node.name, ["cond": condition, "a": a, "b": inputs[2]], shape: shape)
    }

    /// Whether each value is not 0, as bools.
    private func truth(_ value: String, name: String, shape: [Int]) -> String {
        program.operation("not_equal", name, ["x": value, "y": program.constant(name + "_zero", .floats([0]))], shape: shape, dataType: Self.bool)
    }

    static let bool = CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__BOOL
}
