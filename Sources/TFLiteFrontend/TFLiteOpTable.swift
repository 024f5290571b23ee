import Conversion
import ModelFormat

/// The TFLite op table: BuiltinOperator name -> mapping giving nodes and
/// the output's rank (4 for maps, 2 for vectors). No nodes means the output
/// stands for input 0 (a reshape that changes nothing). Options field ids
/// are schema.fbs's (`TFLiteOptions.tables`).
enum TFLiteOpTable {
    typealias Mapping = @Sendable (TFLiteBuilder) throws -> (nodes: [Node], rank: Int)

    static let mappings: [String: Mapping] = [
        "CONV_2D": convolution, "DEPTHWISE_CONV_2D": depthwise, "FULLY_CONNECTED": fullyConnected,
        "AVERAGE_POOL_2D": { try pooling($0, .average) }, "MAX_POOL_2D": { try pooling($0, .max) },
        "ADD": { try arithmetic($0, .add) }, "MUL": { try arithmetic($0, .multiply) }, "SUB": { try arithmetic($0, .subtract) },
        "RESIZE_BILINEAR": TFLiteResize.bilinear, "RESIZE_NEAREST_NEIGHBOR": TFLiteResize.nearest,
        "RESHAPE": reshape, "SOFTMAX": softmax, "CONCATENATION": concatenation, "PAD": pad, "MEAN": mean,
        "HARD_SWISH": { b in (GatedActivation.hardSwish(input: try b.input(0), output: b.name), b.rank(0)) },
        "LOGISTIC": { try unary($0, .activation(.sigmoid)) }, "TANH": { try unary($0, .activation(.tanh)) },
        "RELU": { try unary($0, .activation(.relu)) }, "RELU6": { try unary($0, .activation(.clip(min: 0, max: 6))) },
        "RELU_N1_TO_1": { try unary($0, .activation(.clip(min: -1, max: 1))) },
        // Of an activation (one of a constant is folded: `TFLiteWalk.foldDequantize`): values are computed in float.
        "DEQUANTIZE": { b in _ = try b.input(0); return ([], b.rank(0)) },
        "QUANTIZE": { b in _ = try b.input(0); return ([], b.rank(0)) },
    ]

    static func unary(_ b: TFLiteBuilder, _ op: Op) throws -> (nodes: [Node], rank: Int) {
        ([b.node(op, [try b.input(0)])], b.rank(0))
    }

    /// Inputs: x [1, H, W, C], kernel [Cout, kH, kW, Cin / groups] (OHWI), bias [Cout].
    static func convolution(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        guard b.rank(0) == 4 else { throw TFLiteOpError("its input is not a [1, H, W, C] map") }
        let (shape, kernel) = try b.floats(1, "kernel")
        guard shape.count == 4, shape[3] >= 1 else { throw TFLiteOpError("the kernel has the shape \(shape), not [Cout, kH, kW, Cin]") }
        let (cout, kh, kw, cin) = (shape[0], shape[1], shape[2], shape[3])
        let channels = b.shape(0).channels
        guard channels % cin == 0, cout % (channels / cin) == 0 else {
            throw TFLiteOpError("the kernel \(shape) does not fit \(channels) input channels")
        }
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, groups: channels / cin, kernel: Size2(kh, kw),
                               stride: try b.pair(h: 2, w: 1, "stride"), dilation: try b.pair(h: 5, w: 4, "dilation", default: 1),
                               padding: try b.padding(0), weights: NHWCLayout.outputFirst(cout: cout, kh: kh, kw: kw, cin: cin, from: kernel),
                               bias: try b.bias(2, count: cout))
        return (try b.fused(.convolution(conv), [x], activation: 3), 4)
    }

    /// Inputs: x [1, H, W, C], kernel [1, kH, kW, C * multiplier], bias. The
    /// multiplier is the kernel's; depth_multiplier, when the file states
    /// it, must agree (TFLite's kernels read the shape since 2.1).
    static func depthwise(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        guard b.rank(0) == 4 else { throw TFLiteOpError("its input is not a [1, H, W, C] map") }
        let (shape, kernel) = try b.floats(1, "kernel")
        let channels = b.shape(0).channels
        guard shape.count == 4, shape[0] == 1, shape[3] % channels == 0, shape[3] > 0 else {
            throw TFLiteOpError("the kernel has the shape \(shape), not [1, kH, kW, \(channels) * multiplier]")
        }
        let multiplier = shape[3] / channels
        let stated = try b.int(3)
        if b.op.options?.has(3) == true, stated != 0, stated != multiplier {
            throw TFLiteOpError("depth_multiplier \(stated) does not agree with the kernel \(shape) on \(channels) channels")
        }
        let conv = Convolution(outputChannels: shape[3], kernelChannels: 1, groups: channels, kernel: Size2(shape[1], shape[2]),
                               stride: try b.pair(h: 2, w: 1, "stride"), dilation: try b.pair(h: 6, w: 5, "dilation", default: 1),
                               padding: try b.padding(0),
                               weights: NHWCLayout.depthwise(kh: shape[1], kw: shape[2], cin: channels, multiplier: multiplier, from: kernel),
                               bias: try b.bias(2, count: shape[3]))
        return (try b.fused(.convolution(conv), [x], activation: 4), 4)
    }

    /// Inputs: x (a map is flattened in H, W, C order, TFLite's memory
    /// order), weights [out, in] (Core ML's layout already), bias [out].
    static func fullyConnected(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        var x = try b.input(0)
        let (shape, weights) = try b.floats(1, "weights")
        guard shape.count == 2, shape[1] == b.shape(0).count else {
            throw TFLiteOpError("the weights have the shape \(shape), which does not fit \(b.shape(0).count) inputs")
        }
        var nodes: [Node] = []
        if b.rank(0) == 4 && b.shape(0).count != b.shape(0).channels {
            nodes.append(b.node(.flatten(.channelLast), [x], suffix: "flatten"))
            x = nodes[0].outputs[0]
        }
        let product = InnerProduct(inputChannels: shape[1], outputChannels: shape[0], weights: NHWCLayout.unchanged(from: weights),
                                   bias: try b.bias(2, count: shape[0]))
        return (nodes + (try b.fused(.innerProduct(product), [x], activation: 0)), 2)
    }

    /// TFLite's average pooling divides by the pixels inside the input.
    static func pooling(_ b: TFLiteBuilder, _ kind: Pooling.Kind) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        guard b.rank(0) == 4 else { throw TFLiteOpError("its input is not a [1, H, W, C] map") }
        let pool = Pooling(kind: kind, kernel: try b.pair(h: 4, w: 3, "filter size"), stride: try b.pair(h: 2, w: 1, "stride"),
                           padding: try b.padding(0), excludePaddingFromAverage: kind == .average)
        return (try b.fused(.pooling(pool), [x], activation: 5), 4)
    }

    /// Paddings: a constant [4, 2] of H and W only (batch and channels unpadded).
    static func pad(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        let p = try b.ints(1, "paddings")
        guard b.rank(0) == 4, p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else {
            throw TFLiteOpError("paddings \(p) pad more than H and W of a map, which is not supported")
        }
        let limit = ShapeInference.maximumSize
        guard p.allSatisfy({ (0...limit).contains($0) }) else { throw TFLiteOpError("paddings \(p) are out of range (0...\(limit))") }
        let edges = Edges(top: p[2], bottom: p[3], left: p[4], right: p[5])
        return ([b.node(.padding(Padding(kind: .constant(0), edges: edges)), [x])], 4)
    }

    /// Over H and W of a map (axes 1 and 2): global average pooling.
    static func mean(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        let axes = Set(try b.ints(1, "axes").map { $0 < 0 ? $0 + 4 : $0 })
        guard b.rank(0) == 4, axes == [1, 2] else { throw TFLiteOpError("a mean over axes \(axes.sorted()) is not supported (over 1 and 2 of a map is)") }
        let pool = Pooling(kind: .average, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)
        return ([b.node(.pooling(pool), [x])], try b.bool(0) ? 4 : 2)
    }

    /// To the output's shape as the file states it: a map flattened to a
    /// vector in H, W, C order; a map or vector to a map. A constant shape
    /// input (or new_shape) must give the same shape; a computed one (a
    /// Keras Flatten's SHAPE, STRIDED_SLICE, PACK) is the stated shape
    /// computed again, every size being static.
    static func reshape(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0)
        let target = b.output.shape.map(Int.init)
        let stated = try b.isConstant(1) ? try b.ints(1, "shape") : (b.op.options?.has(0) == true
            ? try b.op.options!.int32s(0, "new_shape").map(Int.init) : nil)
        if let stated {
            let resolved = try TensorShape.reshapeTarget(stated, count: b.shape(0).count)
            guard resolved == target else { throw TFLiteOpError("the shape \(stated) gives \(resolved), and the file states the output \(target)") }
        }
        switch target.count {
        case 2 where b.rank(0) == 2: return ([], 2)
        case 2: return ([b.node(.flatten(.channelLast), [x])], 2)
        case 4: return ([b.node(.reshape(targetShape: [target[3], target[1], target[2]], order: .channelLast), [x])], 4)
        default: throw TFLiteOpError("a reshape to \(target) is not supported ([1, H, W, C] and [1, N] are)")
        }
    }

    /// Along channels (the last axis).
    static func concatenation(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        guard !b.inputs.isEmpty else { throw TFLiteOpError("has no inputs") }
        let inputs = try b.inputs.indices.map { try b.input($0) }
        let rank = b.rank(0)
        guard b.inputRanks.allSatisfy({ $0 == rank }) else { throw TFLiteOpError("its inputs have different ranks") }
        let raw = try b.int(0), axis = raw < 0 ? raw + rank : raw
        guard axis == rank - 1 else { throw TFLiteOpError("concatenation along axis \(raw) is not supported (along the last, channels, is)") }
        return (try b.fused(.concat, inputs, activation: 1), rank)
    }

    /// Softmax over the last axis (channels); beta scales the input first.
    static func softmax(_ b: TFLiteBuilder) throws -> (nodes: [Node], rank: Int) {
        let x = try b.input(0), beta = try b.float(0)
        guard beta.isFinite else { throw TFLiteOpError("beta \(beta) is not finite") }
        if beta == 1 { return ([b.node(.softmax, [x])], b.rank(0)) }
        let scaled = b.node(.multiply(constant: beta), [x], suffix: "beta")
        return ([scaled, b.node(.softmax, scaled.outputs)], b.rank(0))
    }
}
