import ModelFormat

/// The rank-N operations of a model with tensor inputs (`Model.hasTensorInputs`),
/// as coremltools' iOS15 op definitions state them: every value has its
/// exact shape in the program, and axes are written as indices of it
/// (counted from the front). `reshape` (int32 shape), `transpose` (perm),
/// `concat` (axis, interleave false), `softmax` (axis), `slice_by_index`
/// (begin, end, stride), reductions (`ProgramLowering+Reductions`), `matmul` (of two tensors with their transposes, or by a
/// constant [N, K] matrix with `transpose_y`, then `add` of the bias),
/// `layer_norm` (axes, gamma, beta, epsilon), `gelu` (mode), `cumsum` (axis,
/// exclusive, reverse), and constants as `const`. (The channel split `Op.split` is not written: no frontend
/// makes it in a tensor model, whose splits are `Slice`s.)
extension ProgramLowering {
    /// Lowers `node` when it is one of the rank-N operations above (its
    /// outputs' values recorded); false for any other.
    /// - Throws: `ModelError` naming a form not written yet.
    mutating func lowerTensor(_ node: Node, _ inputs: [String], shape: [Int]) throws -> Bool {
        let name = node.name
        guard case .defined(let op) = node.operation else { return false }
        let source = node.inputs.first.map { self.shape(of: $0) } ?? []
        let result: String
        switch op.definition {
        case let reshape as Reshape:
            guard reshape.order == .channelFirst else { throw refusal(node, "reshape in channel-last order") }
            result = program.operation("reshape", name, ["x": inputs[0], "shape": ints(name + "_shape", shape)], shape: shape)
        case let transpose as Transpose:
            result = program.operation("transpose", name, ["x": inputs[0], "perm": ints(name + "_perm", transpose.axes)], shape: shape)
        case let concat as Concat:
            result = program.operation("concat", name, [("values", inputs), ("axis", [axis(name, concat.axis, rank: source.count)]),
                                                        ("interleave", [program.constant(name + "_interleave", .bools([false]))])], shape: shape)
        case let softmax as Softmax:
            result = program.operation("softmax", name, ["x": inputs[0], "axis": axis(name, softmax.axis, rank: source.count)], shape: shape)
        case let slice as Slice:
            result = sliceByIndex(slice, inputs[0], source: source, name: name, shape: shape)
        case let reduce as Reduce:
            result = try tensorReduce(reduce, inputs[0], node: node, source: source, shape: shape)
        case let product as MatMul:
            result = matmul(product, inputs, name: name, shape: shape)
        case let norm as LayerNorm:
            let end = source.count + 1 + norm.axis
            result = layerNorm(norm, inputs[0], axes: Array((end - norm.normalizedShape.count)..<end), name: name, shape: shape)
        case let gelu as GELU:
            result = self.gelu(gelu, inputs[0], name: name, shape: shape)
        case let constant as Constant:
            result = program.constant(name, constant.data, shape: constant.shape)
        case let sum as CumSum:
            result = cumSum(sum, inputs[0], axis: TensorShape(source).axisIndex(sum.axis)!, name: name, shape: shape)  // checked by shape inference
        default:
            return false
        }
        values[node.outputs[0]] = result
        return true
    }

    /// GELU (element-wise: of a map or a tensor) by its mode's name.
    func gelu(_ gelu: GELU, _ input: String, name: String, shape: [Int]) -> String {
        let mode = switch gelu.mode {
        case .exact: "EXACT"
        case .tanhApproximation: "TANH_APPROXIMATION"
        case .sigmoidApproximation: "SIGMOID_APPROXIMATION"
        }
        return program.operation("gelu", name, ["x": input, "mode": program.constant(name + "_mode", .strings([mode]))], shape: shape)
    }

    /// `cumsum` along `axis` of the program's value (counted from the front).
    func cumSum(_ sum: CumSum, _ input: String, axis: Int, name: String, shape: [Int]) -> String {
        program.operation("cumsum", name, [
            "x": input, "axis": program.constant(name + "_axis", .ints([Int32(axis)])),
            "exclusive": program.constant(name + "_exclusive", .bools([sum.exclusive])), "reverse": program.constant(name + "_reverse", .bools([sum.reverse])),
        ], shape: shape)
    }

    /// An int32 vector constant.
    private func ints(_ base: String, _ values: [Int]) -> String {
        program.constant(base, .ints(values.map { Int32($0) }), shape: [values.count])
    }

    /// An axis as an int32 scalar, counted from the front.
    private func axis(_ name: String, _ axis: Int, rank: Int) -> String {
        program.constant(name + "_axis", .ints([Int32(axis < 0 ? axis + rank : axis)]))
    }

    /// A product of two tensors, or by the constant matrix stored [N, K]
    /// (so `transpose_y`) and then its bias added.
    private func matmul(_ product: MatMul, _ inputs: [String], name: String, shape: [Int]) -> String {
        guard let weights = product.weights else {
            return program.operation("matmul", name, [
                "x": inputs[0], "y": inputs[1], "transpose_x": program.constant(name + "_transpose_x", .bools([product.transposeA])),
                "transpose_y": program.constant(name + "_transpose_y", .bools([product.transposeB])),
            ], shape: shape)
        }
        let matrix = program.constant(name + "_weight", weights, shape: [product.outputChannels, product.inputChannels])
        let multiplied = program.operation("matmul", product.bias == nil ? name : name + "_product", [
            "x": inputs[0], "y": matrix, "transpose_x": program.constant(name + "_transpose_x", .bools([false])),
            "transpose_y": program.constant(name + "_transpose_y", .bools([true])),
        ], shape: shape)
        guard let bias = product.bias else { return multiplied }
        return program.operation("add", name, ["x": multiplied, "y": program.constant(name + "_bias", bias, shape: [product.outputChannels])], shape: shape)
    }
}

extension ProgramLowering {
    /// A slice as `slice_by_index` over every axis of `source` (a tensor's
    /// shape, or a map's [1, C, H, W]: a map axis -3, -2, -1 counted from
    /// the end), its bounds resolved to absolute ones (a negative index
    /// counts from the axis' end; shape inference refused what Core ML
    /// computes otherwise).
    func sliceByIndex(_ slice: Slice, _ input: String, source: [Int], name: String, shape: [Int]) -> String {
        var (begin, end, strides) = ([Int](repeating: 0, count: source.count), source, [Int](repeating: 1, count: source.count))
        for (listed, index) in slice.axisIndices(rank: source.count).enumerated() {
            guard let index else { continue }  // checked by shape inference
            let stop = slice.end[listed]
            (begin[index], end[index], strides[index]) = (slice.range(listed, of: source[index]).first, stop < 0 ? stop + source[index] : stop,
                                                          slice.strides[listed])
        }
        return program.operation("slice_by_index", name, [
            "x": input, "begin": ints(name + "_begin", begin), "end": ints(name + "_end", end), "stride": ints(name + "_stride", strides),
        ], shape: shape)
    }
}
