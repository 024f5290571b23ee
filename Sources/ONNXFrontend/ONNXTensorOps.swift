import Conversion
import ModelFormat

/// Tensors the model holds exactly as ONNX shapes them (a transformer's
/// [1, T, D] sequences, attention's [heads, T, T] scores): Core ML's rank-N
/// layers, axes and permutations as ONNX numbers them.
extension ONNXOpTable {
    /// A constant as a tensor of exactly its shape (load-constant-ND).
    static func constantTensor(_ b: ONNXBuilder, _ c: ONNXConstant, suffix: String) throws -> (nodes: [Node], name: String) {
        guard c.count > 0, c.shape.count <= 5 else { throw b.node.fail("constants of shape \(c.shape) are not supported as tensors") }
        let load = b.emit(.defined(Constant(shape: c.shape.isEmpty ? [1] : c.shape, data: c.weights())), [], suffix: suffix)
        return ([load], load.outputs[0])
    }

    /// An exact tensor and a constant of another shape, broadcast by `op`
    /// (add or multiply): the constant `transform`ed, as a tensor.
    static func exactWithConstant(_ b: ONNXBuilder, _ x: ONNXTensor, _ c: ONNXConstant, _ op: Op,
                                  transform: (Double) -> Double = { $0 }) throws -> (nodes: [Node], value: GraphValue) {
        let transformed = ONNXConstant(shape: c.shape, values: c.values.map(transform))
        let (nodes, name) = try constantTensor(b, transformed, suffix: "constant")
        let rank = max(x.rank, c.shape.count)
        return (nodes + [b.emit(op, [x.name, name])], .tensor(name: b.name, rank: rank))
    }

    /// Any reshape of an exact tensor, or of a map or vector to a shape
    /// that is neither.
    static func reshapeExactly(_ b: ONNXBuilder, _ x: ONNXTensor, _ target: [Int]) throws -> (nodes: [Node], value: GraphValue) {
        guard x.isExact else { throw b.needsTensors("a reshape to \(target)") }
        if x.shape.dimensions == target { return ([], .tensor(name: x.name, rank: target.count)) }
        return ([b.emit(.reshape(targetShape: target), [x.name])], .tensor(name: b.name, rank: target.count))
    }

    static func transpose(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let perm = b.node.ints("perm") ?? Array((0..<x.rank).reversed())
        guard x.isExact else { throw b.needsTensors("a transpose") }
        return b.single(.defined(Transpose(axes: perm)), x)
    }

    /// Along any axis of exact tensors; constant parts become tensors.
    static func concatExactly(_ b: ONNXBuilder, axis: Int) throws -> (nodes: [Node], value: GraphValue) {
        var nodes: [Node] = [], names: [String] = [], rank = 0
        for index in b.inputs.indices {
            if b.isConstant(index) {
                let (made, name) = try constantTensor(b, try b.constant(index, "input \(index)"), suffix: "part\(index)")
                nodes += made
                names.append(name)
            } else {
                let part = try b.tensor(index)
                guard part.isExact else { throw b.needsTensors("a concatenation with constants or tensors") }
                names.append(part.name)
                rank = part.rank
            }
        }
        let normalized = axis < 0 ? axis + rank : axis
        return (nodes + [b.emit(.defined(Concat(axis: normalized)), names)], .tensor(name: b.name, rank: rank))
    }

    /// One index along an axis of an exact tensor: a slice, then the axis
    /// removed (a scalar index) or kept (a one-element index list); several
    /// are `gatherSeveral`'s.
    static func gather(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let indices = try b.constant(1, "the indices")
        guard x.isExact else { throw b.needsTensors("a gather") }
        var axis = b.node.int("axis") ?? 0
        if axis < 0 { axis += x.rank }
        guard axis >= 0, axis < x.rank else { throw b.node.fail("axis \(axis) is out of range") }
        guard indices.count == 1, indices.shape.count <= 1 else { return try gatherSeveral(b, x, indices, axis: axis) }
        let dims = x.shape.dimensions
        var index = try indices.ints(b.node, "the index")[0]
        if index < 0 { index += dims[axis] }
        guard index >= 0, index < dims[axis] else { throw b.node.fail("index \(index) is out of range 0..<\(dims[axis])") }
        var begin = [Int](repeating: 0, count: x.rank), end = dims
        (begin[axis], end[axis]) = (index, index + 1)
        let slice = b.emit(.slice(Slice(begin: begin, end: end)), [x.name], suffix: indices.shape.isEmpty ? "slice" : nil)
        guard indices.shape.isEmpty else { return ([slice], .tensor(name: b.name, rank: x.rank)) }
        var kept = dims
        kept.remove(at: axis)
        return ([slice, b.emit(.reshape(targetShape: kept), slice.outputs)], .tensor(name: b.name, rank: kept.count))
    }

    /// Ranges of a tensor in forward steps (a channel split written as
    /// Slices, torch's `chunk`); starts, ends, axes and steps constants.
    static func slice(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.isExact else { throw b.needsTensors("a slice") }
        let ranges = try ONNXFolding.sliceRanges(b.node, b.constants, shape: x.dims, opset: b.opset)
        guard ranges.allSatisfy({ $0.step > 0 }) else { throw b.node.fail("steps \(ranges.map(\.step)) run backwards, which is not supported") }
        guard ranges.allSatisfy({ $0.start < $0.end }) else { throw b.node.fail("slices no values of \(x.dims)") }
        if ranges.map(\.start).allSatisfy({ $0 == 0 }), ranges.map(\.end) == x.dims, ranges.allSatisfy({ $0.step == 1 }) {
            return ([], .tensor(name: x.name, rank: x.rank))
        }
        return b.single(.slice(Slice(begin: ranges.map(\.start), end: ranges.map(\.end), strides: ranges.map(\.step))), x)
    }

    /// Over the last axis: (x - mean) / sqrt(variance + epsilon) * scale + bias,
    /// one `LayerNorm` (scale and bias constants of the axis's size, or one
    /// value each).
    static func layerNorm(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.isExact else { throw b.needsTensors("a layer normalization") }
        let axis = b.node.int("axis") ?? -1
        guard axis == -1 || axis == x.rank - 1 else { throw b.node.fail("only normalization over the last axis is supported, not axis \(axis)") }
        let epsilon = b.node.float("epsilon") ?? 1e-5
        guard epsilon.isFinite, epsilon >= 0 else { throw b.node.fail("epsilon \(epsilon) must be finite and not negative") }
        let size = x.dims[x.rank - 1]
        func affine(_ index: Int, _ what: String) throws -> Weights? {
            guard b.has(index) else { return nil }
            let constant = try b.constant(index, what)
            guard constant.count == size || constant.count == 1, constant.shape.allSatisfy({ $0 == 1 || $0 == size }) else {
                throw b.node.fail("\(what) of shape \(constant.shape) does not hold one value per element of the last axis (\(size))")
            }
            // One value broadcast along the axis.
            return constant.count == size ? constant.weights() : Weights([Float](repeating: Float(constant.values[0]), count: size))
        }
        let norm = LayerNorm(normalizedShape: [size], epsilon: epsilon, gamma: try affine(1, "the scale"), beta: try affine(2, "the bias"))
        return b.single(.defined(norm), x)
    }

    /// x times a constant [K, N] (with `bias`), or times another tensor.
    static func matMulExactly(_ b: ONNXBuilder, _ x: ONNXTensor, bias: [Float]? = nil) throws -> (nodes: [Node], value: GraphValue) {
        if b.isConstant(1) {
            let w = try b.constant(1, "the right-hand matrix")
            guard w.shape.count == 2, w.shape[0] == x.shape.width, w.shape[1] > 0 else {
                throw b.node.fail("a constant of shape \(w.shape) does not multiply \(x.shape.dimensions)")
            }
            let (inputs, outputs) = (w.shape[0], w.shape[1])
            let product = MatMul(inputChannels: inputs, outputChannels: outputs,
                                 weights: w.weights { NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: $0) }, bias: bias.map(Weights.init))
            return b.single(.defined(product), x)
        }
        let y = try b.tensor(1)
        guard y.isExact else { throw b.needsTensors("a product with a tensor") }
        return ([b.emit(.defined(MatMul()), [x.name, y.name])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
    }
}

extension ONNXOpTable {
    /// Log-softmax along `axis` (opset 13, default -1). Before opset 13 the
    /// input is flattened from `axis` (default 1) into rows, each
    /// normalized: the same where every size after the axis is 1 (rank 2,
    /// the last axis), refused elsewhere.
    static func logSoftmax(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let given = b.node.int("axis") ?? (b.opset < 13 ? 1 : -1)
        let axis = try heldAxis(b, x, given, "a log-softmax")
        let index = given < 0 ? given + x.rank : given
        if b.opset < 13, !x.dims[(index + 1)...].allSatisfy({ $0 == 1 }) {
            throw b.node.fail("before opset 13 LogSoftmax flattens its input \(x.dims) from axis \(index) and normalizes the rows "
                              + "(this model's opset is \(b.opset)); only where that is one axis (the last) is it supported")
        }
        return b.single(.defined(LogSoftmax(axis: axis)), x)
    }

    /// The running sum along the constant axis of input 1 (a scalar or one
    /// value), `exclusive` and `reverse` as given (0 or 1).
    static func cumSum(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let axes = try b.constant(1, "the axis").values
        guard axes.count == 1, let given = Int(exactly: axes[0]), given.magnitude <= 1 << 16 else {
            throw b.node.fail("the axis must be one whole number, not \(axes.prefix(4))")
        }
        var flags: [Bool] = []
        for key in ["exclusive", "reverse"] {
            let value = b.node.int(key) ?? 0
            guard value == 0 || value == 1 else { throw b.node.fail("\(key) must be 0 or 1, not \(value)") }
            flags.append(value == 1)
        }
        return b.single(.defined(CumSum(axis: try heldAxis(b, x, given, "a cumulative sum"), exclusive: flags[0], reverse: flags[1])), x)
    }

    /// ONNX's `given` axis (negative counts from the end) as the IR's: as
    /// it is on an exact tensor. A map [1, C, H, W], held as [C, H, W], and
    /// a vector [1, F], held as [F, 1, 1], take it counted from the end,
    /// which Core ML's batch axis leaves as it is; along their batch axis
    /// (0), `what` is refused.
    static func heldAxis(_ b: ONNXBuilder, _ x: ONNXTensor, _ given: Int, _ what: String) throws -> Int {
        guard (-x.rank..<x.rank).contains(given) else { throw b.node.fail("axis \(given) is outside the input \(x.dims.map(String.init).joined(separator: "x"))") }
        if x.isExact { return given }
        let axis = given < 0 ? given + x.rank : given
        guard axis > 0 else { throw b.node.fail("\(what) along the batch axis (0) of a map or vector is not supported") }
        return x.isMap ? axis - 4 : -3
    }
}
