import Conversion
import ModelFormat

/// The ONNX op table: op type -> mapping. Each returns the nodes it emits
/// and the value of the ONNX node's output 0 (`multiOutput`'s give
/// every output's). Semantics follow the
/// model's opset where ONNX changed them (Softmax's axis at 13; Clip, Pad,
/// Squeeze, Unsqueeze and the reductions taking inputs instead of attributes).
enum ONNXOpTable {
    typealias Mapping = @Sendable (ONNXBuilder) throws -> (nodes: [Node], value: GraphValue)

    static let mappings: [String: Mapping] = named.merging(reductions) { first, _ in first }.merging(attentionPatterns) { first, _ in first }
        .merging(comparisons) { first, _ in first }

    private static let named: [String: Mapping] = [
        "Identity": passThrough, "Dropout": passThrough,
        "Conv": convolution, "BatchNormalization": batchNorm,
        "Relu": { try activation($0, .relu) }, "Sigmoid": { try activation($0, .sigmoid) }, "Tanh": { try activation($0, .tanh) },
        "LeakyRelu": { try activation($0, .leakyRelu(alpha: $0.node.float("alpha") ?? 0.01)) },
        "Elu": { try activation($0, .elu(alpha: $0.node.float("alpha") ?? 1)) },
        "Softplus": { try activation($0, .softplus) },
        "HardSigmoid": { try activation($0, .sigmoidHard(alpha: $0.node.float("alpha") ?? 0.2, beta: $0.node.float("beta") ?? 0.5)) },
        "HardSwish": hardSwish, "Clip": clip,
        "Add": add, "Sub": subtract, "Mul": multiply, "Div": divide,
        "Gemm": gemm, "MatMul": matMul,
        "MaxPool": { try pooling($0, .max) }, "AveragePool": { try pooling($0, .average) },
        "GlobalAveragePool": { try globalPool($0, .average, keepDimensions: true) },
        "GlobalMaxPool": { try globalPool($0, .max, keepDimensions: true) },
        "Flatten": flatten, "Reshape": reshape, "Squeeze": reshapeOnly, "Unsqueeze": reshapeOnly,
        "Concat": concat, "Softmax": softmax, "LogSoftmax": logSoftmax, "CumSum": cumSum, "Pad": pad,
        "ConvTranspose": transposedConvolution, "Resize": resize, "Upsample": resize,
        "Sqrt": { try unary($0, Unary(kind: .sqrt)) }, "Exp": { try unary($0, Unary(kind: .exp)) },
        "Log": { try unary($0, Unary(kind: .log)) }, "Abs": { try unary($0, Unary(kind: .abs)) },
        "Reciprocal": { try unary($0, Unary(kind: .inverse)) }, "Neg": { b in b.single(.multiply(constant: -1), try b.tensor(0)) },
        "Pow": power, "PRelu": prelu, "Selu": selu, "Gelu": gelu, "Max": { try extremum($0, max: true) }, "Min": { try extremum($0, max: false) },
        "InstanceNormalization": instanceNorm,
        "Transpose": transpose, "Gather": gather, "LayerNormalization": layerNorm, "Slice": slice,
        "Sum": { try variadic($0, mean: false) }, "Mean": { try variadic($0, mean: true) },
        "DepthToSpace": { try depthSpace($0, toSpace: true) }, "SpaceToDepth": { try depthSpace($0, toSpace: false) },
    ]

    static func passThrough(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        guard let first = b.inputs.first, let value = first else { throw b.node.fail("has no input") }
        // Dropout's training_mode input (opset 12): true drops values at random.
        if b.node.op == "Dropout", b.has(2) {
            guard b.isConstant(2), try b.constant(2, "training_mode").values.allSatisfy({ $0 == 0 }) else {
                throw b.node.fail("a training_mode input that is not a constant false (random dropout) is not supported")
            }
        }
        return ([], value)
    }

    static func activation(_ b: ONNXBuilder, _ activation: Activation) throws -> (nodes: [Node], value: GraphValue) {
        b.single(.activation(activation), try b.tensor(0))
    }

    /// x * HardSigmoid(x) with alpha 1/6, beta 1/2 (opset 14).
    static func hardSwish(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        return (GatedActivation.hardSwish(input: x.name, output: b.name, gate: "gate"), .tensor(name: b.name, rank: x.rank))
    }

    /// Bounds as attributes before opset 11, as optional inputs after.
    static func clip(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        var low = -Float.greatestFiniteMagnitude, high = Float.greatestFiniteMagnitude
        if b.opset < 11 {
            low = b.node.float("min") ?? low
            high = b.node.float("max") ?? high
        } else {
            if b.has(1) { low = Float(try b.constant(1, "min").values.first ?? Double(low)) }
            if b.has(2) { high = Float(try b.constant(2, "max").values.first ?? Double(high)) }
        }
        guard low.isFinite || low == -.infinity, high.isFinite || high == .infinity else { throw b.node.fail("min \(low) or max \(high) is NaN") }
        guard low <= high else { throw b.node.fail("min \(low) is above max \(high)") }
        return b.single(.activation(.clip(min: low, max: high)), x)
    }

    /// Weights [Cout, Cin / group, kH, kW] are Core ML's layout already.
    static func convolution(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let w = try b.constant(1, "the weights")
        guard x.takesMapLayers, w.shape.count == 4, w.count > 0, w.shape.checkedProduct == w.count else {
            throw b.node.fail("only 2-D convolutions of [1, C, H, W] maps are supported (weights \(w.shape))")
        }
        let group = b.node.int("group") ?? 1
        let (cout, cin, kh, kw) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3])
        guard group > 0, group <= x.shape.channels, cin * group == x.shape.channels, cout % group == 0 else {
            throw b.node.fail("weights \(w.shape) in \(group) groups do not fit \(x.shape.channels) input channels")
        }
        let kernel = Size2(kh, kw)
        let bias = try b.convolutionBias(kernel: [kh, kw], outputChannels: cout)
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, groups: group, kernel: kernel,
                               stride: try b.window("strides", default: 1), dilation: try b.window("dilations", default: 1),
                               padding: try b.padding(), weights: w.weights(), bias: bias)
        return b.single(.convolution(conv), x)
    }

    static func batchNorm(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.takesMapLayers || x.isVector else { throw b.node.fail("only [1, C, H, W] and [1, F] values are supported, not \(x.dims)") }
        let channels = x.takesMapLayers ? x.shape.channels : x.shape.count
        let parts = try (1...4).map { try b.constant($0, ["", "the scale", "the bias", "the mean", "the variance"][$0]) }
        guard parts.allSatisfy({ $0.count == channels }) else { throw b.node.fail("its parameters do not have \(channels) values each") }
        let norm = BatchNorm(channels: channels, epsilon: b.node.float("epsilon") ?? 1e-5, gamma: parts[0].weights(), beta: parts[1].weights(),
                             mean: parts[2].weights(), variance: parts[3].weights())
        return b.single(.batchNorm(norm), x)
    }

    static func pooling(_ b: ONNXBuilder, _ kind: Pooling.Kind) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.takesMapLayers else { throw b.node.fail("only 2-D pooling of [1, C, H, W] values is supported, not of \(x.dims)") }
        guard try b.window("dilations", default: 1) == Size2(square: 1) else { throw b.node.fail("dilations \(b.node.ints("dilations") ?? []) are not supported (dilated pooling)") }
        guard b.node.outputs.count < 2 || b.node.outputs[1].isEmpty else { throw b.node.fail("its Indices output is not supported") }
        guard b.node.has("kernel_shape") else { throw b.node.fail("has no kernel_shape") }
        let kernel = try b.window("kernel_shape", default: 1), stride = try b.window("strides", default: 1)
        var padding = try b.padding()
        if let ceil = b.node.int("ceil_mode"), ceil != 0 {
            // Output sizes rounded up, a last window that would start past the input and its
            // leading pad dropped (onnxruntime). Caffe's rounding (Core ML's includeLastPixel) drops
            // it on both axes when either pad is not 0 (QUIRKS); where rounding up changes nothing, the pads are used as they are.
            guard case .explicit(let e) = padding else { throw b.node.fail("ceil_mode \(ceil) with auto_pad is not supported") }
            let axes = [(x.shape.height, kernel.height, stride.height, e.top, e.bottom), (x.shape.width, kernel.width, stride.width, e.left, e.right)]
            func floorSize(_ a: (Int, Int, Int, Int, Int)) -> Int { (a.0 + a.3 + a.4 - a.1) / a.2 + 1 }
            func ceilSize(_ a: (Int, Int, Int, Int, Int)) -> Int {
                let size = (a.0 + a.3 + a.4 - a.1 + a.2 - 1) / a.2 + 1
                return (size - 1) * a.2 >= a.0 + a.3 ? size - 1 : size
            }
            func caffeSize(_ a: (Int, Int, Int, Int, Int)) -> Int {
                let size = (a.0 + 2 * a.3 - a.1 + a.2 - 1) / a.2 + 1
                return (e.top > 0 || e.left > 0) && (size - 1) * a.2 >= a.0 + a.3 ? size - 1 : size
            }
            guard axes.allSatisfy({ $0.0 + $0.3 + $0.4 >= $0.1 }) else { throw b.node.fail("kernel_shape \([kernel.height, kernel.width]) is larger than the padded input") }
            if !axes.allSatisfy({ ceilSize($0) == floorSize($0) }) {
                guard axes.allSatisfy({ $0.3 == $0.4 && caffeSize($0) == ceilSize($0) }) else {
                    throw b.node.fail("ceil_mode \(ceil) with pads \([e.top, e.left, e.bottom, e.right]) is not supported (asymmetric pads, or a last window Core ML keeps)")
                }
                padding = .includeLastPixel(Size2(e.top, e.left))
            }
        }
        let pool = Pooling(kind: kind, kernel: kernel, stride: stride, padding: padding,
                           excludePaddingFromAverage: kind == .average && b.node.int("count_include_pad") != 1)
        return b.single(.pooling(pool), x)
    }

    static func globalPool(_ b: ONNXBuilder, _ kind: Pooling.Kind, keepDimensions: Bool) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.takesMapLayers, keepDimensions || x.isMap else { throw b.node.fail("only pooling of [1, C, H, W] values is supported, not of \(x.dims)") }
        let pool = Pooling(kind: kind, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)
        return ([b.emit(.pooling(pool), [x.name])], .tensor(name: b.name, rank: keepDimensions ? 4 : 2))
    }

    /// [1, C, H, W] -> [1, C*H*W] (axis 1); a vector stays as it is.
    static func flatten(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        if x.isExact {  // any axis: a reshape to [product before, product from]
            let dims = x.dims, given = b.node.int("axis") ?? 1
            let axis = given < 0 ? given + dims.count : given
            guard (0...dims.count).contains(axis) else { throw b.node.fail("axis \(given) is out of range for rank \(dims.count)") }
            return try reshapeExactly(b, x, [dims.prefix(axis).reduce(1, *), dims.dropFirst(axis).reduce(1, *)])
        }
        guard (b.node.int("axis") ?? 1) == 1 else { throw b.needsTensors("a flatten from axis \(b.node.int("axis") ?? 1)") }
        if x.rank == 2 { return ([], .tensor(name: x.name, rank: 2)) }
        if x.shape.height == 1 && x.shape.width == 1 { return ([], .tensor(name: x.name, rank: 2)) }
        return ([b.emit(.flatten(.channelFirst), [x.name])], .tensor(name: b.name, rank: 2))
    }

    /// To [1, F] (a flatten), or to [1, C, H, W] of the same values.
    static func reshape(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let requested = try b.constant(1, "the shape").ints(b.node, "the shape")
        let target = try ONNXFolding.reshaped(x.dims, to: requested, allowZero: b.node.int("allowzero") == 1, b.node)
        if x.isExact || ![2, 4].contains(target.count) || target.first != 1 { return try reshapeExactly(b, x, target) }
        return try toShape(b, x, target)
    }

    /// Squeeze and Unsqueeze of tensors: the values stay, the rank changes.
    static func reshapeOnly(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let dims = x.dims
        let listed = b.opset < 13 ? b.node.ints("axes") : (b.has(1) ? try b.constant(1, "the axes").ints(b.node, "the axes") : nil)
        var target: [Int]
        if b.node.op == "Squeeze" {
            let axes = try ONNXFolding.squeezedAxes(listed, of: dims, b.node)
            target = dims.enumerated().filter { !axes.contains($0.offset) }.map(\.element)
            if x.isExact { return try reshapeExactly(b, x, target.isEmpty ? [1] : target) }
            // The batch axis of a map or vector has no place in the model's [C, H, W].
            guard !axes.contains(0) else { throw b.needsTensors("axes \(listed ?? axes.sorted()), a squeeze of the batch axis,") }
        } else {
            guard let listed else { throw b.node.fail("has no axes") }
            target = dims
            for axis in listed.map({ $0 < 0 ? $0 + dims.count + listed.count : $0 }).sorted() {
                guard axis >= 0, axis <= target.count else { throw b.node.fail("axis \(axis) is out of range") }
                target.insert(1, at: axis)
            }
            if x.isExact { return try reshapeExactly(b, x, target) }  // no batch to keep
        }
        guard [2, 4].contains(target.count) else { throw b.needsTensors("axes \(listed ?? []), a reshape to \(target),") }
        return try toShape(b, x, target)
    }

    /// `x` as `target` (batch first): rank 2 [1, F] or rank 4 [1, C, H, W].
    static func toShape(_ b: ONNXBuilder, _ x: ONNXTensor, _ target: [Int]) throws -> (nodes: [Node], value: GraphValue) {
        switch target.count {
        case 2:
            if x.rank == 2 || (x.shape.height == 1 && x.shape.width == 1) { return ([], .tensor(name: x.name, rank: 2)) }
            return ([b.emit(.flatten(.channelFirst), [x.name])], .tensor(name: b.name, rank: 2))
        case 4:
            let shape = Array(target.dropFirst())
            if shape == [x.shape.channels, x.shape.height, x.shape.width] { return ([], .tensor(name: x.name, rank: 4)) }
            return ([b.emit(.reshape(targetShape: shape, order: .channelFirst), [x.name])], .tensor(name: b.name, rank: 4))
        default:
            throw b.needsTensors("a reshape to \(target)")
        }
    }

    /// Along channels (axis 1) of maps or vectors.
    static func concat(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let exact = b.inputs.indices.contains { index in b.isConstant(index) || ((try? b.tensor(index))?.isExact ?? false) }
        if exact { return try concatExactly(b, axis: b.node.int("axis") ?? 1) }
        let parts = try b.inputs.indices.map { try b.tensor($0) }
        guard let first = parts.first else { throw b.node.fail("concatenates nothing") }
        if parts.count == 1 { return ([], .tensor(name: first.name, rank: first.rank)) }  // torchvision's DenseNet joins a list of one
        var axis = b.node.int("axis") ?? 1
        if axis < 0 { axis += first.rank }
        guard axis == 1, parts.allSatisfy({ $0.rank == first.rank }) else { throw b.needsTensors("a concatenation along axis \(axis)") }
        return ([b.emit(.concat, parts.map(\.name))], .tensor(name: b.name, rank: first.rank))
    }

    /// Over the features of a vector, or the channels of a map: before
    /// opset 13 the input is flattened from `axis` (default 1) and the
    /// softmax taken over all of it; from 13 it is along `axis` (default -1).
    static func softmax(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        if x.isExact { return try softmaxExactly(b, x) }
        var axis = b.node.int("axis") ?? (b.opset < 13 ? 1 : -1)
        if axis < 0 { axis += x.rank }
        let overAll = b.opset < 13 && axis == 1
        let singlePixel = x.shape.height == 1 && x.shape.width == 1
        if x.rank == 4, overAll, !singlePixel {
            throw b.node.fail("before opset 13 Softmax flattens [1, C, H, W] from axis 1 and normalizes C, H and W together (this model's opset is \(b.opset)); that softmax is not supported")
        }
        guard axis == 1 else { throw b.needsTensors("a softmax along axis \(axis)") }
        return b.single(.softmax, x)
    }

    /// Constant padding of H and W; pads as an attribute before opset 11.
    static func pad(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let mode = b.node.string("mode") ?? "constant"
        guard !b.has(3) else { throw b.node.fail("Pad's axes input (opset 18) is not supported") }
        let p = b.opset < 11 ? (b.node.ints("pads") ?? []) : try b.constant(1, "the pads").ints(b.node, "the pads")
        let value: Float = b.opset < 11 ? (b.node.float("value") ?? 0) : (b.has(2) ? Float(try b.constant(2, "the value").values.first ?? 0) : 0)
        let heightWidthOnly = p.count == 8 && [0, 1, 4, 5].allSatisfy { p[$0] == 0 }
        if !heightWidthOnly {
            guard x.isExact else { throw b.needsTensors("padding of axes other than H and W, pads \(p),") }
            return try padExactly(b, x, pads: p, value: value, mode: mode)
        }
        guard x.takesMapLayers, p.count == 8, p[0] == 0, p[1] == 0, p[4] == 0, p[5] == 0, p.allSatisfy({ $0 >= 0 }) else {
            throw b.node.fail("only padding of H and W is supported, pads \(p)")
        }
        let kind: Padding.Kind
        switch mode {
        case "constant": kind = .constant(value)
        case "reflect": kind = .reflection
        case "edge": kind = .replication
        default: throw b.node.fail("mode \(mode) is not supported")
        }
        return b.single(.padding(Padding(kind: kind, edges: Edges(top: p[2], bottom: p[6], left: p[3], right: p[7]))), x)
    }

    static func unary(_ b: ONNXBuilder, _ unary: Unary) throws -> (nodes: [Node], value: GraphValue) {
        b.single(.unary(unary), try b.tensor(0))
    }

    /// x to a constant power.
    static func power(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let exponent = try b.constant(1, "the exponent")
        guard exponent.isScalar, exponent[0].isFinite else { throw b.node.fail("only a constant scalar exponent is supported") }
        if exponent[0] == 2 { return ([b.emit(.multiply(constant: 1), [x.name, x.name])], .tensor(name: b.name, rank: x.rank)) }
        return b.single(.unary(Unary(kind: .power, alpha: Float(exponent[0]))), x)
    }

    /// Slopes per channel (or one for all).
    static func prelu(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let slope = try b.constant(1, "the slope")
        let channels = x.takesMapLayers ? x.shape.channels : x.shape.count
        guard x.takesMapLayers || x.isVector || slope.isScalar else { throw b.node.fail("only [1, C, H, W] and [1, F] values are supported, not \(x.dims)") }
        guard let values = b.perChannel(slope, of: x) else { throw b.node.fail("slope of shape \(slope.shape) is not one value or one per channel") }
        return b.single(.activation(.prelu(alpha: Weights(values.count == 1 ? [Float](repeating: values[0], count: channels) : values))), x)
    }

    /// gamma * elu(x, alpha).
    static func selu(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        let elu = b.emit(.activation(.elu(alpha: b.node.float("alpha") ?? 1.67326319217681884765625)), [x.name], suffix: "elu")
        return ([elu, b.emit(.multiply(constant: b.node.float("gamma") ?? 1.05070102214813232421875), elu.outputs)], .tensor(name: b.name, rank: x.rank))
    }

    /// Gelu (opset 20): exact, or the tanh approximation.
    static func gelu(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let approximate = b.node.string("approximate") ?? "none"
        guard approximate == "none" || approximate == "tanh" else { throw b.node.fail("approximate \(approximate) is not supported") }
        return b.single(.defined(GELU(mode: approximate == "tanh" ? .tanhApproximation : .exact)), try b.tensor(0))
    }

    /// Of two tensors; or of a tensor and a scalar (a threshold, a clip);
    /// of one or more than two, `extremumOfSeveral`.
    static func extremum(_ b: ONNXBuilder, max: Bool) throws -> (nodes: [Node], value: GraphValue) {
        guard b.inputs.count == 2 else { return try extremumOfSeveral(b, max: max) }
        if let (x, c, _) = try b.withConstant() {
            guard c.isScalar else { throw b.node.fail("only a scalar constant operand is supported") }
            let bound = Float(c[0])
            return b.single(max ? .unary(Unary(kind: .threshold, alpha: bound)) : .activation(.clip(min: -Float.greatestFiniteMagnitude, max: bound)), x)
        }
        return try both(b, max ? .maximum : .minimum)
    }

    /// Each channel normalized by its own mean and variance over H and W.
    static func instanceNorm(_ b: ONNXBuilder) throws -> (nodes: [Node], value: GraphValue) {
        let x = try b.tensor(0)
        guard x.takesMapLayers else { throw b.node.fail("only [1, C, H, W] values are supported, not \(x.dims)") }
        let (scale, bias) = (try b.constant(1, "the scale"), try b.constant(2, "the bias"))
        let channels = x.shape.channels
        guard scale.count == channels, bias.count == channels else { throw b.node.fail("scale and bias do not have \(channels) values each") }
        let norm = BatchNorm(channels: channels, epsilon: b.node.float("epsilon") ?? 1e-5, gamma: scale.weights(), beta: bias.weights(),
                             mean: Weights([Float](repeating: 0, count: channels)), variance: Weights([Float](repeating: 1, count: channels)),
                             computeMeanVar: true, instanceNormalization: true)
        return b.single(.batchNorm(norm), x)
    }
}
