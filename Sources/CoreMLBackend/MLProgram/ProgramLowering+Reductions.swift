import ModelFormat
import CoreMLSchema

/// Reductions and the log-softmax, as coremltools' iOS15 op definitions
/// state them: `reduce_*` (axes, keep_dims) of a tensor's axes or of a
/// map's (on its `[1, C, H, W]` view, keeping them); the log-softmax as
/// coremltools' TensorFlow frontend writes it, `x - max` then that less
/// `reduce_log_sum_exp` of it (every term finite, as the IR's).
extension ProgramLowering {
    /// MIL's reduction for each mode but argmax (`argmax`) and logSum (NeuralNetwork's sum of
    /// logarithms, not MIL's reduce_log_sum, the logarithm of a sum: `log`, then `reduce_sum`).
    static let reductions: [Reduce.Mode: String] = [
        .sum: "reduce_sum", .average: "reduce_mean", .product: "reduce_prod", .max: "reduce_max", .min: "reduce_min",
        .sumSquare: "reduce_sum_square", .l1: "reduce_l1_norm", .l2: "reduce_l2_norm",
    ]

    /// A reduction of a tensor model's value (`source` its shape). Every
    /// axis dropped is written keeping them, then reshaped to the IR's
    /// `[1]` (MIL would make a scalar).
    func tensorReduce(_ reduce: Reduce, _ input: String, node: Node, source: [Int], shape: [Int]) throws -> String {
        guard let axes = reduce.axisIndices(of: TensorShape(source)) else { throw refusal(node, "a reduction over axes \(reduce.axes)") }
        guard !reduce.keepDimensions, axes.count == source.count else {
            return try reduction(reduce, input, axes: axes, keep: reduce.keepDimensions, node: node, name: node.name, shape: shape)
        }
        let kept = try reduction(reduce, input, axes: axes, keep: true, node: node, name: node.name + "_kept", shape: source.map { _ in 1 })
        return program.operation("reshape", node.name, ["x": kept, "shape": program.constant(node.name + "_shape", .ints([1]), shape: [1])], shape: shape)
    }

    /// A reduction of a map's axes (counted from the end of its `[C, H, W]`), keeping them.
    func mapReduce(_ reduce: Reduce, _ input: String, node: Node, shape: [Int]) throws -> String {
        // Dropped axes would leave a value the map view does not hold.
        guard reduce.keepDimensions else { throw refusal(node, "a reduction of a map dropping its axes") }
        let axes = try mapAxes(reduce.axes, of: node.inputs[0], node: node, "a reduction")
        return try reduction(reduce, input, axes: axes, keep: true, node: node, name: node.name, shape: shape)
    }

    private func reduction(_ reduce: Reduce, _ input: String, axes: [Int], keep: Bool, node: Node, name: String, shape: [Int]) throws -> String {
        if reduce.mode == .argmax { return try argmax(input, axes: axes, keep: keep, node: node, name: name, shape: shape) }
        var (input, type) = (input, Self.reductions[reduce.mode])
        if reduce.mode == .logSum {
            // NeuralNetwork's LOGSUM, a sum of logarithms: MIL's log (of x + epsilon), then reduce_sum.
            input = program.operation("log", name + "_log", ["x": input, "epsilon": program.constant(name + "_epsilon", .floats([reduce.epsilon]))],
                                      shape: self.shape(of: node.inputs[0]))
            type = "reduce_sum"
        }
        guard let type else { throw refusal(node, "a reduction of mode \(reduce.mode.rawValue)") }
        return program.operation(type, name, [
            "x": input, "axes": program.constant(name + "_axes", .ints(axes.map { Int32($0) }), shape: [axes.count]),
            "keep_dims": program.constant(name + "_keep_dims", .bools([keep])),
        ], shape: shape)
    }
}

extension ProgramLowering {
    /// `reduce_argmax` along one axis (its first largest value's index, as the IR's), an int32 `cast` to the
    /// compute type: exact in float32, and in float16 for an axis of up to 2048 values (refused above).
    private func argmax(_ input: String, axes: [Int], keep: Bool, node: Node, name: String, shape: [Int]) throws -> String {
        guard axes.count == 1 else { throw refusal(node, "an argmax over \(axes.count) axes") }
        let source = self.shape(of: node.inputs[0])
        if program.float16, source[axes[0]] > 2048 {
            throw refusal(node, "an argmax over \(source[axes[0]]) values at float16 compute precision (an index above 2048 would round)")
        }
        let indices = program.operation("reduce_argmax", name + "_indices", [
            ("x", [input]), ("axis", [program.constant(name + "_axis", .ints([Int32(axes[0])]))]),
            ("keep_dims", [program.constant(name + "_keep_dims", .bools([keep]))]),
        ], shape: shape, dataType: CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__INT32)
        return program.cast(indices, toFloat16: program.float16, base: name, shape: shape)
    }

    /// `x - reduce_max(x)`, less `reduce_log_sum_exp` of that, along the axis (keeping it).
    func logSoftmax(_ softmax: LogSoftmax, _ input: String, node: Node, shape: [Int]) throws -> String {
        // A tensor's axis (shape inference checked it), or a map's on its [1, C, H, W] view.
        let axis = tensorModel ? TensorShape(shape).axisIndex(softmax.axis)!
                               : try mapAxes([softmax.axis], of: node.inputs[0], node: node, "a log-softmax")[0]
        let name = node.name
        var reduced = shape
        reduced[axis] = 1
        let axes = program.constant(name + "_axes", .ints([Int32(axis)]), shape: [1]), keep = program.constant(name + "_keep_dims", .bools([true]))
        let largest = program.operation("reduce_max", name + "_max", ["x": input, "axes": axes, "keep_dims": keep], shape: reduced)
        let offset = program.operation("sub", name + "_offset", ["x": input, "y": largest], shape: shape)
        let sum = program.operation("reduce_log_sum_exp", name + "_log_sum_exp", ["x": offset, "axes": axes, "keep_dims": keep], shape: reduced)
        return program.operation("sub", name, ["x": offset, "y": sum], shape: shape)
    }
}
