import ModelFormat

/// The rank-N operations the frontends use on maps (Keras's
/// LayerNormalization, Reshape, log_softmax and glu), on the program's
/// `[1, C, H, W]` view of a `[C, H, W]` map, as coremltools' iOS15 op
/// definitions state them: `layer_norm` over axis 1 (axes, gamma and beta
/// of the channels' shape, epsilon); a reshape in H, W, C order as
/// `transpose` to `[1, H, W, C]`, `reshape`, and `transpose` back
/// (reductions: `ProgramLowering+Reductions`); a constant (the box
/// decodings' grid offsets, anchors and priors) as `const` of the map's
/// shape. (A slice is `sliceByIndex`'s, as in a tensor model, over the
/// four axes.)
extension ProgramLowering {
    /// A map's axes, counted from the end of its `[C, H, W]`, as indices of the program's `[1, C, H, W]`.
    /// - Throws: `ModelError` for a value that is not a `[C, H, W]` map.
    func mapAxes(_ axes: [Int], of tensor: String, node: Node, _ what: String) throws -> [Int] {
        let rank = shapes[tensor]?.rank ?? 0
        guard rank == 3, axes.allSatisfy({ (-3..<3).contains($0) }) else { throw refusal(node, "\(what) of a rank-\(rank) value in a model of maps") }
        return axes.map { ($0 < 0 ? $0 + 3 : $0) + 1 }
    }

    func mapLayerNorm(_ norm: LayerNorm, _ input: String, node: Node, shape: [Int]) throws -> String {
        let end = 3 + 1 + norm.axis
        let axes = try mapAxes(Array((end - norm.normalizedShape.count)..<end), of: node.inputs[0], node: node, "a layer normalization")
        return layerNorm(norm, input, axes: axes, name: node.name, shape: shape)
    }

    /// `layer_norm` over `axes` of the program's value. A beta without a gamma is given a gamma of ones (the same
    /// values): coremltools' iOS15 type inference reads gamma's shape whenever beta is given.
    func layerNorm(_ norm: LayerNorm, _ input: String, axes: [Int], name: String, shape: [Int]) -> String {
        var arguments: [(String, [String])] = [("x", [input]), ("axes", [program.constant(name + "_axes", .ints(axes.map { Int32($0) }), shape: [axes.count])])]
        let count = norm.normalizedShape.reduce(1, *)
        if let gamma = norm.gamma ?? (norm.beta == nil ? nil : Weights(Array(repeating: 1, count: count))) {
            arguments.append(("gamma", [program.constant(name + "_gamma", gamma, shape: norm.normalizedShape)]))
        }
        if let beta = norm.beta { arguments.append(("beta", [program.constant(name + "_beta", beta, shape: norm.normalizedShape)])) }
        arguments.append(("epsilon", [program.constant(name + "_epsilon", .floats([norm.epsilon]))]))
        return program.operation("layer_norm", name, arguments, shape: shape)
    }

    /// A `[C, H, W]` map reshaped in H, W, C order (Keras's Reshape): to
    /// `[1, H, W, C]`, to the target's `[1, H', W', C']`, back to `[1, C', H', W']`.
    func channelLastReshape(_ input: String, node: Node, shape: [Int]) -> String {
        let name = node.name, source = self.shape(of: node.inputs[0])
        func perm(_ suffix: String, _ values: [Int32]) -> String { program.constant(name + suffix, .ints(values), shape: [4]) }
        let hwc = program.operation("transpose", name + "_hwc", ["x": input, "perm": perm("_hwc_perm", [0, 2, 3, 1])],
                                    shape: [1, source[2], source[3], source[1]])
        let target = [1, shape[2], shape[3], shape[1]]
        let reshaped = program.operation("reshape", name + "_hwc_reshaped", [
            "x": hwc, "shape": program.constant(name + "_hwc_shape", .ints(target.map { Int32($0) }), shape: [4]),
        ], shape: target)
        return program.operation("transpose", name, ["x": reshaped, "perm": perm("_perm", [0, 3, 1, 2])], shape: shape)
    }

    /// The constant's values as the map `shape` ([1, C, H, W]) they are in the IR.
    func mapConstant(_ constant: Constant, node: Node, shape: [Int]) throws -> String {
        guard constant.shape.checkedProduct == shape.checkedProduct else { throw refusal(node, "a constant shaped \(constant.shape) in a map model") }
        return program.constant(node.name, constant.data, shape: shape)
    }
}
