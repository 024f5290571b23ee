import Conversion
import ModelFormat

/// Element-wise arithmetic, reshapes and matrix products.
extension TFOpTable {
    /// Tensor + constant is a bias ([1] or per channel); tensor + tensor an add.
    static func add(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) { try combine(b, .add, "the addend") }

    /// Tensor * constant is a scale ([1] or per channel); tensor * tensor a multiply.
    static func multiply(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) { try combine(b, .multiply, "the factor") }

    /// A tensor and a constant (`role` in errors): a bias or scale, a
    /// position map's constant layer combined with the tensor, or a
    /// one-channel tensor spread over the constant's channels; two tensors:
    /// the add or multiply layer.
    private static func combine(_ b: TFBuilder, _ kind: AddOrMultiply, _ role: String) throws -> (nodes: [Node], value: GraphValue) {
        guard let (x, c, _) = try b.withConstant(role) else {
            let (x, y) = (try b.tensor(0), try b.tensor(1))
            return ([b.emit(kind.ofTensors, [x.name, y.name])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
        }
        if let spread = try spreadOverChannels(b, x, c, scale: kind == .multiply) { return spread }
        guard let values = try b.perChannel(c, channels: x.shape.channels) else {
            if let map = try constantMap(b, x, c) { return map(kind.ofTensors) }
            throw b.node.fail("\(kind.verb) a constant of shape \(c.shape) is not supported (only scalars, per-channel and [H, W] maps)")
        }
        return b.single(kind.perChannel(values), x.name, rank: x.rank)
    }

    static func subtract(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        if b.isConstant(1) {
            let x = try b.tensor(0), c = try b.constant(1, "the subtrahend")
            guard let bias = try b.perChannel(c, channels: x.shape.channels) else { throw b.node.fail("subtracting a constant of shape \(c.shape) is not supported") }
            return b.single(AddOrMultiply.add.perChannel(bias.map { -$0 }), x.name, rank: x.rank)
        }
        if b.isConstant(0) {
            let x = try b.tensor(1), c = try b.constant(0, "the minuend")
            guard let bias = try b.perChannel(c, channels: x.shape.channels) else { throw b.node.fail("subtracting from a constant of shape \(c.shape) is not supported") }
            let negated = b.emit(.multiply(constant: -1), [x.name], suffix: "negate")
            return ([negated, b.emit(AddOrMultiply.add.perChannel(bias), [negated.outputs[0]])], .tensor(name: b.name, rank: x.rank))
        }
        let (x, y) = (try b.tensor(0), try b.tensor(1))
        let negated = b.emit(.multiply(constant: -1), [y.name], suffix: "negate")
        return ([negated, b.emit(.add(constant: 0), [x.name, negated.outputs[0]])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
    }

    /// A tensor plus or times a constant that varies over H and W (a
    /// position map, [1, H, W, C] or [1, H, W, 1]): the constant as a Core
    /// ML load-constant layer in [C, H, W] order (or [1, H, W]), combined
    /// by an add or multiply layer, which broadcast those shapes. Nil for a
    /// shape that is not such a map.
    static func constantMap(_ b: TFBuilder, _ x: (name: String, rank: Int, shape: TensorShape), _ c: TFConstant) throws
        -> ((Op) -> (nodes: [Node], value: GraphValue))? {
        let dims = Array(repeating: 1, count: max(0, 4 - c.shape.count)) + c.shape
        let (height, width, channels) = (x.shape.height, x.shape.width, x.shape.channels)
        guard x.rank == 4, dims.count == 4, dims[0] == 1, dims[1] == height, dims[2] == width, dims[3] == 1 || dims[3] == channels,
              height * width > 1, c.count == dims.reduce(1, *) else { return nil }
        let depth = dims[3]
        // NHWC (y, x, c) to [C, H, W].
        let values = (0..<c.count).map { index -> Float in
            let (channel, pixel) = (index / (height * width), index % (height * width))
            return Float(c[pixel * depth + channel])
        }
        let constant = b.emit(.constant(shape: [depth, height, width], data: Weights(values)), [], suffix: "constant")
        return { op in ([constant, b.emit(op, [x.name, constant.outputs[0]])], .tensor(name: b.name, rank: 4)) }
    }

    /// A one-channel tensor times (or plus) a constant of C values along the
    /// last axis broadcasts to C channels (a layer normalization's
    /// rsqrt(var) * gamma): a 1x1 convolution from one channel to C, with
    /// the values as weights (or weights 1 and the values as bias).
    static func spreadOverChannels(_ b: TFBuilder, _ x: (name: String, rank: Int, shape: TensorShape), _ c: TFConstant,
                                   scale: Bool) throws -> (nodes: [Node], value: GraphValue)? {
        guard x.shape.channels == 1, !c.isScalar, c.count > 1, c.shape.dropLast().allSatisfy({ $0 == 1 }) else { return nil }
        let values = c.floats
        let ones = Weights([Float](repeating: 1, count: values.count))
        let conv = Convolution(outputChannels: values.count, kernelChannels: 1, kernel: Size2(1, 1),
                               weights: scale ? Weights(values) : ones, bias: scale ? nil : Weights(values))
        return b.single(.convolution(conv), x.name, rank: x.rank)
    }

    /// x / constant is a scale by the reciprocal; x / y multiplies by
    /// Core ML's inverse (1 / y).
    static func divide(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        if b.isConstant(0) {
            // c / x: the inverse of x, scaled by c (a number or one per channel).
            let x = try b.tensor(1), c = try b.constant(0, "the dividend")
            guard let scale = try b.perChannel(c, channels: x.shape.channels) else {
                throw b.node.fail("dividing a constant of shape \(c.shape) is not supported (only scalars and per-channel)")
            }
            let inverse = b.emit(.unary(Unary(kind: .inverse)), [x.name], suffix: "inverse")
            return ([inverse, b.emit(AddOrMultiply.multiply.perChannel(scale), inverse.outputs)], .tensor(name: b.name, rank: x.rank))
        }
        if !b.isConstant(1) {
            let (x, y) = (try b.tensor(0), try b.tensor(1))
            let inverse = b.emit(.unary(Unary(kind: .inverse)), [y.name], suffix: "inverse")
            return ([inverse, b.emit(.multiply(constant: 1), [x.name, inverse.outputs[0]])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
        }
        let x = try b.tensor(0), c = try b.constant(1, "the divisor")
        guard let divisor = try b.perChannel(c, channels: x.shape.channels), !divisor.contains(0) else {
            throw b.node.fail("only division by non-zero scalar or per-channel constants is supported")
        }
        return b.single(AddOrMultiply.multiply.perChannel(divisor.map { 1 / $0 }), x.name, rank: x.rank)
    }

    /// max(x, c) is Core ML's threshold; min(x, c) a clip from below -inf.
    static func maximum(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        if let (x, c) = try scalarOperand(b) {
            return b.single(.unary(Unary(kind: .threshold, alpha: c)), x.name, rank: x.rank)
        }
        let (x, y) = (try b.tensor(0), try b.tensor(1))
        return ([b.emit(.maximum, [x.name, y.name])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
    }

    static func minimum(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        if let (x, c) = try scalarOperand(b) {
            return b.single(.activation(.clip(min: -.greatestFiniteMagnitude, max: c)), x.name, rank: x.rank)
        }
        let (x, y) = (try b.tensor(0), try b.tensor(1))
        return ([b.emit(.minimum, [x.name, y.name])], .tensor(name: b.name, rank: max(x.rank, y.rank)))
    }

    private static func scalarOperand(_ b: TFBuilder) throws -> ((name: String, rank: Int, shape: TensorShape), Float)? {
        guard let (x, c, _) = try b.withConstant("the operand") else { return nil }
        guard c.isScalar else { throw b.node.fail("only scalar constants are supported here, not shape \(c.shape)") }
        return (x, Float(c[0]))
    }

    /// To [N, F]: a flatten in H, W, C order (NHWC's), which Core ML's
    /// channel-last flatten gives without permuting any weights. To
    /// [N, H, W, C]: a channel-last reshape.
    ///
    /// Tensordot (a Dense layer on a map) reshapes [1, H, W, C] to the
    /// pixels' rows [H * W, C], multiplies, and reshapes back: the rows are
    /// the map as it is, a rank-2 value whose H and W are not 1, on which
    /// every op of the last axis stays per pixel (MatMul a 1x1 convolution).
    static func reshape(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        var target = try b.constant(1, "the shape").ints(b.node, "the shape")
        let pixels = x.shape.height * x.shape.width
        if x.rank == 4, pixels > 1, target.count == 2, target[1] == x.shape.channels, target[0] == pixels || target[0] == -1 {
            return ([], .tensor(name: x.name, rank: 2))
        }
        if x.rank == 2, pixels > 1, target == [1, x.shape.height, x.shape.width, x.shape.channels] {
            return ([], .tensor(name: x.name, rank: 4))
        }
        // The batch axis: 0 or -1 there means 1 (one image at a time).
        if target.first == 0 || target.first == -1 { target[0] = 1 }
        guard target.first == 1 else { throw b.node.fail("cannot reshape \(x.shape.count) values (batch 1) to \(target)") }
        target = try ConstantEvaluator.resolvedShape(target, count: x.shape.count, b.node)
        switch target.count {
        case 2:
            return ([b.emit(.flatten(.channelLast), [x.name])], .tensor(name: b.name, rank: 2))
        case 4:
            return ([b.emit(.reshape(targetShape: [target[3], target[1], target[2]], order: .channelLast), [x.name])],
                    .tensor(name: b.name, rank: 4))
        default:
            throw b.node.fail("reshapes to rank \(target.count) are not supported")
        }
    }

    /// Squeezing leaves the values as they are; what `squeeze_dims` (empty:
    /// every axis of size 1) decides is the rank. Taken: a vector [1, F]
    /// squeezed to [F] or not at all, and [1, 1, 1, C] squeezed to [1, C]
    /// (axes 1 and 2) or [C] (0, 1 and 2), all held as [1, F]; any other
    /// result (rank 3, or H, W and C reordered as a matrix) is refused.
    static func squeeze(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let pixels = x.shape.height * x.shape.width
        let shape = x.rank == 4 ? [1, x.shape.height, x.shape.width, x.shape.channels] : [pixels, x.shape.count / max(pixels, 1)]
        let dims = b.node.ints("squeeze_dims") ?? []
        guard dims.allSatisfy({ (-shape.count..<shape.count).contains($0) }) else {
            throw b.node.fail("squeeze_dims \(dims) is out of range for rank \(shape.count)")
        }
        let squeezed = dims.isEmpty ? Set(shape.indices.filter { shape[$0] == 1 }) : Set(dims.map { $0 < 0 ? $0 + shape.count : $0 })
        guard squeezed.allSatisfy({ shape[$0] == 1 }) else {
            throw b.node.fail("squeeze_dims \(dims) names an axis of \(shape) whose size is not 1")
        }
        let vector = x.rank == 2 && pixels == 1
        guard vector || (x.rank == 4 && (squeezed == [1, 2] || squeezed == [0, 1, 2])) || squeezed.isEmpty else {
            throw b.node.fail("squeeze_dims \(dims) of \(shape) is not supported (only [1, 1, 1, C] to [1, C] or [C])")
        }
        return ([], .tensor(name: x.name, rank: squeezed.isEmpty ? x.rank : 2))
    }

    /// x [1, in] times a constant [in, out] (or [out, in] with transpose_b).
    static func matMul(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let w = try b.constant(1, "the weight matrix")
        guard b.node.bool("transpose_a") != true else { throw b.node.fail("transpose_a true is not supported") }
        guard w.shape.count == 2 else { throw b.node.fail("only x * W with a constant 2-D W is supported") }
        let transposed = b.node.bool("transpose_b") == true
        let (inputs, outputs) = transposed ? (w.shape[1], w.shape[0]) : (w.shape[0], w.shape[1])
        let weights = transposed ? w.weights() : w.weights { NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: $0) }
        if x.rank == 2, x.shape.height * x.shape.width > 1 {
            // The rows of a map (see `reshape`): per pixel, a 1x1 convolution.
            guard inputs == x.shape.channels else { throw b.node.fail("weights take \(inputs) values, the rows have \(x.shape.channels)") }
            let conv = Convolution(outputChannels: outputs, kernelChannels: inputs, kernel: Size2(1, 1), weights: weights)
            return ([b.emit(.convolution(conv), [x.name])], .tensor(name: b.name, rank: 2))
        }
        guard inputs == x.shape.count else { throw b.node.fail("weights take \(inputs) values, the input has \(x.shape.count)") }
        var nodes: [Node] = []
        var source = x.name
        if x.shape.height != 1 || x.shape.width != 1 {
            nodes.append(b.emit(.flatten(.channelLast), [x.name], suffix: "flatten"))
            source = nodes[0].outputs[0]
        }
        nodes.append(b.emit(.innerProduct(InnerProduct(inputChannels: inputs, outputChannels: outputs, weights: weights)), [source]))
        return (nodes, .tensor(name: b.name, rank: 2))
    }

    static func fusedBatchNorm(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let c = x.shape.channels
        let parts = try ["scale", "offset", "mean", "variance"].enumerated().map { index, what in
            let value = try b.constant(index + 1, "the \(what)")
            guard value.count == c else { throw b.node.fail("the \(what) has \(value.count) values for \(c) channels") }
            return value.weights()
        }
        let norm = BatchNorm(channels: c, epsilon: b.node.float("epsilon") ?? 0.001, gamma: parts[0], beta: parts[1],
                             mean: parts[2], variance: parts[3])
        return ([b.emit(.batchNorm(norm), [x.name])], .tensor(name: b.name, rank: 4))
    }
}

/// Slicing a map: Cropping2D and NASNet's `x[:, 1:, 1:, :]`.
extension TFOpTable {
    /// StridedSlice of an [N, H, W, C] tensor with positive strides and
    /// begin/end masks only (no new, shrunk or ellipsis axes), the batch
    /// axis whole: one Core ML slice per axis of H, W and C it cuts.
    static func stridedSlice(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.rank == 4 else { throw b.node.fail("only slices of [N, H, W, C] maps are supported, the input has rank \(x.rank)") }
        let begin = try b.constant(1, "begin").ints(b.node, "begin"), end = try b.constant(2, "end").ints(b.node, "end")
        let strides = try b.constant(3, "strides").ints(b.node, "strides")
        for mask in ["ellipsis_mask", "new_axis_mask", "shrink_axis_mask"] where (b.node.int(mask) ?? 0) != 0 {
            throw b.node.fail("\(mask) is not supported")
        }
        guard begin.count == 4, end.count == 4, strides.count == 4, strides.allSatisfy({ $0 > 0 && $0 <= ShapeInference.maximumSize }) else {
            throw b.node.fail("begin \(begin), end \(end) and strides \(strides) must have 4 values, strides positive")
        }
        let beginMask = b.node.int("begin_mask") ?? 0, endMask = b.node.int("end_mask") ?? 0
        let sizes = [1, x.shape.height, x.shape.width, x.shape.channels]
        func bounds(_ axis: Int) -> (start: Int, end: Int) {
            let size = sizes[axis]
            func clamp(_ i: Int) -> Int { min(max(i < 0 ? i + size : i, 0), size) }
            return (beginMask & (1 << axis) != 0 ? 0 : clamp(begin[axis]), endMask & (1 << axis) != 0 ? size : clamp(end[axis]))
        }
        guard bounds(0) == (0, 1), strides[0] == 1 else { throw b.node.fail("slicing the batch axis is not supported") }
        var nodes: [Node] = []
        var source = x.name
        for (axis, kind) in [(1, Slice.Axis.height), (2, .width), (3, .channel)] {
            let (start, stop) = bounds(axis)
            guard start < stop else { throw b.node.fail("axis \(axis) keeps nothing (\(start) to \(stop))") }
            guard start != 0 || stop != sizes[axis] || strides[axis] != 1 else { continue }
            nodes.append(b.emit(.slice(Slice(axis: kind, start: start, end: stop, stride: strides[axis])), [source], suffix: "axis\(axis)"))
            source = nodes[nodes.count - 1].outputs[0]
        }
        guard !nodes.isEmpty else { return ([], .tensor(name: x.name, rank: 4)) }
        let last = nodes.removeLast()
        nodes.append(Node(name: b.name, operation: last.operation, inputs: last.inputs, outputs: [b.name]))
        return (nodes, .tensor(name: b.name, rank: 4))
    }
}
