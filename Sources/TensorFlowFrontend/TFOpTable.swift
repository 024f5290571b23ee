import Conversion
import ModelFormat

/// What a mapping sees: the node, its input values, and what it may emit.
struct TFBuilder: GraphBuilding {
    let node: TFNode
    let inputs: [GraphValue]
    let shapes: [String: TensorShape]
    var name: String { node.name }

    func value(_ index: Int) -> GraphValue? { index < inputs.count ? inputs[index] : nil }

    func tensor(_ index: Int) throws -> (name: String, rank: Int, shape: TensorShape) {
        guard index < inputs.count, case .tensor(let name, let rank) = inputs[index] else {
            throw node.fail("input \(index) must be a tensor computed from the model's input, not a constant")
        }
        return (name, rank, shapes[name]!)
    }

    /// [1, s, s, 1] style attributes as (height, width), each in
    /// 1...`ShapeInference.maximumSize` (0, negative or 2^63 is refused by
    /// name before any arithmetic).
    func spatial(_ key: String, default value: Int) throws -> Size2 {
        guard let list = node.ints(key) else { return Size2(square: value) }
        guard list.count == 4, list[0] == 1, list[3] == 1 else { throw node.fail("\(key) \(list) is not supported (only [1, h, w, 1])") }
        let range = 1...ShapeInference.maximumSize
        if let bad = list[1...2].first(where: { !range.contains($0) }) {
            let what = ["strides": "stride", "dilations": "dilation", "ksize": "window size"][key] ?? key
            throw node.fail("\(key) \(list) is not supported: \(what) \(bad) is out of range (\(range))")
        }
        return Size2(list[1], list[2])
    }

    /// SAME, VALID, or EXPLICIT with `explicit_paddings` [0, 0, top, bottom,
    /// left, right, 0, 0] (TensorFlow refuses batch or channel padding, and
    /// explicit_paddings with another padding).
    func padding(kernel: Size2) throws -> WindowPadding {
        let padding = node.string("padding") ?? "VALID"
        let explicit = node.ints("explicit_paddings") ?? []
        guard padding == "EXPLICIT" || explicit.isEmpty else { throw node.fail("explicit_paddings \(explicit) with padding \(padding) is not supported") }
        switch padding {
        case "SAME": return .same(topLeftHeavy: false)  // TF puts the odd pixel bottom/right
        case "VALID": return .explicit(.zero)
        case "EXPLICIT":
            let p = explicit
            guard p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else {
                throw node.fail("explicit_paddings \(p) is not supported (only [0, 0, top, bottom, left, right, 0, 0])")
            }
            let range = 0...ShapeInference.maximumSize
            if let bad = p[2...5].first(where: { !range.contains($0) }) {
                throw node.fail("explicit_paddings \(p) is not supported: padding \(bad) is out of range (\(range))")
            }
            return .explicit(Edges(top: p[2], bottom: p[3], left: p[4], right: p[5]))
        case let other: throw node.fail("padding \(other) is not supported")
        }
    }

    /// A constant that broadcasts per channel: a scalar, or C values along the last axis.
    func perChannel(_ value: TFConstant, channels: Int) throws -> [Float]? {
        if value.isScalar { return [Float(value[0])] }
        guard value.count == channels, value.shape.dropLast().allSatisfy({ $0 == 1 }) else { return nil }
        return value.floats
    }
}

/// The TensorFlow op table: op type -> mapping. Each returns the nodes it
/// emits and the value of the TF node's output 0.
enum TFOpTable {
    typealias Mapping = @Sendable (TFBuilder) throws -> (nodes: [Node], value: GraphValue)

    static let mappings: [String: Mapping] = [
        "Identity": passThrough, "StopGradient": passThrough, "Snapshot": passThrough,
        "PlaceholderWithDefault": passThrough,
        "Conv2D": convolution, "DepthwiseConv2dNative": depthwise,
        "BiasAdd": add, "Add": add, "AddV2": add, "Sub": subtract, "Mul": multiply, "RealDiv": divide,
        "Maximum": maximum, "Minimum": minimum,
        "Relu": { try activation($0, .relu) }, "Relu6": { try activation($0, .clip(min: 0, max: 6)) },
        "Elu": { try activation($0, .elu(alpha: 1)) }, "Sigmoid": { try activation($0, .sigmoid) }, "Tanh": { try activation($0, .tanh) },
        "LeakyRelu": leakyRelu,
        "Softmax": softmax,
        "MaxPool": { try pooling($0, .max) }, "AvgPool": { try pooling($0, .average) },
        "Mean": { try reduction($0, .average) }, "Sum": { try reduction($0, .sum) }, "ConcatV2": concat, "Pad": pad, "PadV2": pad,
        "Reshape": reshape, "Squeeze": squeeze, "MatMul": matMul,
        "FusedBatchNorm": fusedBatchNorm, "FusedBatchNormV2": fusedBatchNorm, "FusedBatchNormV3": fusedBatchNorm,
        "_GELU": { try elementwise($0, .defined(GELU(mode: .exact))) },
        "Neg": { try elementwise($0, .multiply(constant: -1)) }, "Sqrt": { try elementwise($0, .unary(Unary(kind: .sqrt))) },
        "Rsqrt": { try elementwise($0, .unary(Unary(kind: .rsqrt))) }, "Square": square,
        "SquaredDifference": squaredDifference, "StridedSlice": stridedSlice,
        "Conv2DBackpropInput": transposedConvolution, "ResizeNearestNeighbor": resizeNearest, "ResizeBilinear": resizeBilinear, "MirrorPad": mirrorPad,
        "Max": { try reduction($0, .max) }, "Transpose": transpose, "SpaceToDepth": spaceToDepth, "_Repeat": repeatAlongAxis, "Abs": { try elementwise($0, .unary(Unary(kind: .abs))) },
    ]

    /// One layer on one tensor, keeping its rank.
    static func elementwise(_ b: TFBuilder, _ op: Op) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        return b.single(op, x.name, rank: x.rank)
    }

    static func square(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        return ([b.emit(.multiply(constant: 1), [x.name, x.name])], .tensor(name: b.name, rank: x.rank))
    }

    /// (x - y)^2: a difference as Sub maps it, then its square.
    static func squaredDifference(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        var (nodes, difference) = try subtract(TFBuilder(node: b.node.renamed("\(b.name)__difference"), inputs: b.inputs, shapes: b.shapes))
        guard case .tensor(let name, let rank) = difference else { throw b.node.fail("has no tensor input") }
        nodes.append(b.emit(.multiply(constant: 1), [name, name]))
        difference = .tensor(name: b.name, rank: rank)
        return (nodes, difference)
    }

    static func passThrough(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard let first = b.inputs.first else { throw b.node.fail("has no input") }
        return ([], first)
    }

    static func activation(_ b: TFBuilder, _ activation: Activation) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        return b.single(.activation(activation), x.name, rank: x.rank)
    }

    /// TensorFlow computes `x > 0 ? x : alpha * x`; a NaN or infinite
    /// alpha makes NaN of 0 and of every negative input: refused.
    static func leakyRelu(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let alpha = b.node.float("alpha") ?? 0.2
        guard alpha.isFinite else { throw b.node.fail("alpha \(alpha) is not supported (not a finite number)") }
        return try activation(b, .leakyRelu(alpha: alpha))
    }

    static func softmax(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        return b.single(.softmax, x.name, rank: x.rank)
    }

    /// Filters are [kH, kW, Cin, Cout]; Core ML wants [Cout, Cin, kH, kW].
    static func convolution(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let filter = try b.constant(1, "the filter")
        guard filter.shape.count == 4 else { throw b.node.fail("filter shape \(filter.shape) is not [kH, kW, Cin, Cout]") }
        let (kh, kw, cin, cout) = (filter.shape[0], filter.shape[1], filter.shape[2], filter.shape[3])
        guard cin > 0, x.shape.channels % cin == 0 else { throw b.node.fail("filter takes \(cin) channels, the input has \(x.shape.channels)") }
        guard filter.shape.checkedProduct == filter.count, filter.count > 0 else {
            throw b.node.fail("filter shape \(filter.shape) does not hold its \(filter.count) values")
        }
        let weights = filter.weights { NHWCLayout.convolution(kh: kh, kw: kw, cin: cin, cout: cout, from: $0) }
        let kernel = Size2(kh, kw)
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, groups: x.shape.channels / cin, kernel: kernel,
                               stride: try b.spatial("strides", default: 1), dilation: try b.spatial("dilations", default: 1),
                               padding: try b.padding(kernel: kernel), weights: weights)
        return ([b.emit(.convolution(conv), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// Filters are [kH, kW, Cin, multiplier]: a grouped convolution with
    /// Cin groups of one channel; output channel c * multiplier + m.
    static func depthwise(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let filter = try b.constant(1, "the filter")
        guard filter.shape.count == 4, filter.shape[2] == x.shape.channels else {
            throw b.node.fail("filter shape \(filter.shape) does not fit \(x.shape.channels) input channels")
        }
        let (kh, kw, cin, multiplier) = (filter.shape[0], filter.shape[1], filter.shape[2], filter.shape[3])
        guard filter.shape.checkedProduct == filter.count, filter.count > 0 else {
            throw b.node.fail("filter shape \(filter.shape) does not hold its \(filter.count) values")
        }
        let weights = filter.weights { NHWCLayout.depthwise(kh: kh, kw: kw, cin: cin, multiplier: multiplier, from: $0) }
        let kernel = Size2(kh, kw)
        let conv = Convolution(outputChannels: cin * multiplier, kernelChannels: 1, groups: cin, kernel: kernel,
                               stride: try b.spatial("strides", default: 1), dilation: try b.spatial("dilations", default: 1),
                               padding: try b.padding(kernel: kernel), weights: weights)
        return ([b.emit(.convolution(conv), [x.name])], .tensor(name: b.name, rank: 4))
    }

    static func pooling(_ b: TFBuilder, _ kind: Pooling.Kind) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let kernel = try b.spatial("ksize", default: 1)
        // AvgPool has no EXPLICIT padding in TensorFlow (MaxPool has).
        guard kind == .max || b.node.string("padding") != "EXPLICIT" else { throw b.node.fail("padding EXPLICIT is not supported") }
        let padding = try b.padding(kernel: kernel)
        // TensorFlow's average pooling divides by the pixels inside the input only.
        let pool = Pooling(kind: kind, kernel: kernel, stride: try b.spatial("strides", default: 1), padding: padding,
                           excludePaddingFromAverage: kind == .average)
        return ([b.emit(.pooling(pool), [x.name])], .tensor(name: b.name, rank: 4))
    }

    /// Mean, Max and Sum. Over H and W of a map, a global pooling (Mean,
    /// Max) or a reduction (Sum), `keep_dims` giving [1, 1, 1, C] or [1, C];
    /// over the last axis (a layer normalization's moments), a reduction
    /// over channels with `keep_dims` true (false would drop to a rank the
    /// converter does not hold).
    static func reduction(_ b: TFBuilder, _ mode: Reduce.Mode) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let listed = try b.constant(1, "the axis").ints(b.node, "the axis")
        let axes = Set(listed.map { $0 < 0 ? $0 + x.rank : $0 })
        let keep = b.node.bool("keep_dims") ?? false
        let what = b.node.op.lowercased()
        if axes == [x.rank - 1] {
            guard keep else { throw b.node.fail("keep_dims false over the last axis is not supported (only true)") }
            return b.single(.reduce(Reduce(mode: mode, axes: [-3])), x.name, rank: x.rank)
        }
        guard x.rank == 4, axes == [1, 2], listed.count == 2 else {
            throw b.node.fail("a \(what) over axis \(listed) of a rank-\(x.rank) tensor is not supported (only over H and W, axis [1, 2], or the last axis)")
        }
        switch mode {
        case .average: return globalPool(b, x.name, .average)
        case .max: return globalPool(b, x.name, .max)
        default: return ([b.emit(.reduce(Reduce(mode: mode, axes: [-2, -1])), [x.name])], .tensor(name: b.name, rank: keep ? 4 : 2))
        }
    }

    static func concat(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard b.inputs.count >= 3 else { throw b.node.fail("concatenates \(max(b.inputs.count - 1, 0)) tensors: it needs two at least, and an axis") }
        let parts = try (0..<b.inputs.count - 1).map { try b.tensor($0) }
        let rank = parts[0].rank
        var axis = try b.constant(b.inputs.count - 1, "the axis").ints(b.node, "the axis").first ?? 0
        if axis < 0 { axis += rank }
        if axis == rank - 1 { return ([b.emit(.concat, parts.map(\.name))], .tensor(name: b.name, rank: rank)) }
        // Along H or W of maps: that axis swapped with C around a channel concat (Permute, iOS 11).
        guard rank == 4, axis == 1 || axis == 2, parts.allSatisfy({ $0.rank == 4 }) else {
            throw b.node.fail("only concatenation along channels, or along H or W of maps, is supported, not axis \(axis)")
        }
        let swap = Op.permute(axes: axis == 1 ? [0, 2, 1, 3] : [0, 3, 2, 1])
        let swapped = parts.enumerated().map { index, part in b.emit(swap, [part.name], suffix: "swap\(index)") }
        let joined = b.emit(.concat, swapped.map { $0.outputs[0] }, suffix: "concat")
        return (swapped + [joined, b.emit(swap, joined.outputs)], .tensor(name: b.name, rank: 4))
    }

    static func pad(_ b: TFBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let p = try b.constant(1, "the paddings").ints(b.node, "the paddings")
        guard x.rank == 4, p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0 else {
            throw b.node.fail("only padding of H and W is supported, paddings \(p)")
        }
        let value: Float = b.inputs.count > 2 ? Float(try b.constant(2, "the value").values.first ?? 0) : 0
        let padding = Padding(kind: .constant(value), edges: Edges(top: p[2], bottom: p[3], left: p[4], right: p[5]))
        return ([b.emit(.padding(padding), [x.name])], .tensor(name: b.name, rank: 4))
    }
}
