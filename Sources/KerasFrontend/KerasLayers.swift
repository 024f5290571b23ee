import Foundation
import Conversion
import ModelFormat

/// Convolutions, dense layers, normalization and activations.
extension KerasLayerTable {
    /// Kernels are [kH, kW, Cin/groups, Cout]; Core ML wants [Cout, Cin/groups, kH, kW].
    static func convolution(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let (shape, kernel) = try b.kernel(0, "kernel")
        guard shape.count == 4 else { throw b.fail("kernel shape \(shape) is not [kH, kW, Cin, Cout]") }
        let (kh, kw, cin, cout) = (shape[0], shape[1], shape[2], shape[3])
        try b.expect("filters", cout, shape)
        try b.expectKernel(kh, kw, shape)
        // Keras's groups split the input channels: the kernel holds Cin / groups of them.
        let groups = try b.int("groups") ?? 1
        guard groups >= 1, groups <= b.shape.channels, cin * groups == b.shape.channels, cout % groups == 0 else {
            throw b.fail("groups \(groups) does not fit the kernel \(shape) on \(b.shape.channels) input channels")
        }
        let weights = NHWCLayout.convolution(kh: kh, kw: kw, cin: cin, cout: cout, from: kernel)
        let bias = try b.bool("use_bias") ?? true ? Weights(try b.weight(1, "bias", count: cout).values) : nil
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, groups: groups,
                               kernel: Size2(kh, kw), stride: try b.pair("strides", default: 1), dilation: try b.pair("dilation_rate", default: 1),
                               padding: try b.padding(), weights: weights, bias: bias)
        return (try fused(b, .convolution(conv)), 4)
    }

    /// Depthwise kernels are [kH, kW, Cin, multiplier]: groups = Cin, output channel c * multiplier + m.
    static func depthwiseWeights(_ shape: [Int], _ kernel: FloatBytes) -> (weights: Weights, channels: Int, multiplier: Int, kernel: Size2) {
        let (kh, kw, cin, multiplier) = (shape[0], shape[1], shape[2], shape[3])
        let weights = NHWCLayout.depthwise(kh: kh, kw: kw, cin: cin, multiplier: multiplier, from: kernel)
        return (weights, cin, multiplier, Size2(kh, kw))
    }

    static func depthwise(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let (shape, kernel) = try b.kernel(0, "depthwise kernel")
        guard shape.count == 4, shape[2] == b.shape.channels else { throw b.fail("depthwise kernel shape \(shape) does not fit \(b.shape)") }
        let d = depthwiseWeights(shape, kernel)
        try b.expect("depth_multiplier", d.multiplier, shape)
        try b.expectKernel(shape[0], shape[1], shape)
        let bias = try b.bool("use_bias") ?? true ? Weights(try b.weight(1, "bias", count: d.channels * d.multiplier).values) : nil
        let conv = Convolution(outputChannels: d.channels * d.multiplier, kernelChannels: 1, groups: d.channels, kernel: d.kernel,
                               stride: try b.pair("strides", default: 1), dilation: try b.pair("dilation_rate", default: 1),
                               padding: try b.padding(), weights: d.weights, bias: bias)
        return (try fused(b, .convolution(conv)), 4)
    }

    /// Depthwise [kH, kW, Cin, mult] then pointwise [1, 1, Cin * mult, Cout] (with the bias).
    static func separable(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let (dshape, dkernel) = try b.kernel(0, "depthwise kernel")
        let (pshape, pkernel) = try b.kernel(1, "pointwise kernel")
        guard dshape.count == 4, pshape.count == 4, pshape[2] == dshape[2] * dshape[3] else {
            throw b.fail("depthwise \(dshape) and pointwise \(pshape) kernels do not fit together")
        }
        guard dshape[2] == b.shape.channels else { throw b.fail("depthwise kernel shape \(dshape) does not fit \(b.shape)") }
        let d = depthwiseWeights(dshape, dkernel)
        let middle = d.channels * d.multiplier, cout = pshape[3]
        try b.expect("filters", cout, pshape)
        try b.expect("depth_multiplier", d.multiplier, dshape)
        try b.expectKernel(dshape[0], dshape[1], dshape)
        let depthwise = Convolution(outputChannels: middle, kernelChannels: 1, groups: d.channels, kernel: d.kernel,
                                    stride: try b.pair("strides", default: 1), dilation: try b.pair("dilation_rate", default: 1),
                                    padding: try b.padding(), weights: d.weights)
        let pointwiseWeights = NHWCLayout.transposed(inputs: middle, outputs: cout, from: pkernel)
        let bias = try b.bool("use_bias") ?? true ? Weights(try b.weight(2, "bias", count: cout).values) : nil
        let pointwise = Convolution(outputChannels: cout, kernelChannels: middle, kernel: Size2(1, 1), weights: pointwiseWeights, bias: bias)
        let first = b.node(.convolution(depthwise), [b.input], suffix: "depthwise")
        return ([first] + (try fused(b, .convolution(pointwise), input: first.outputs[0])), 4)
    }

    /// Conv2DTranspose kernels are [kH, kW, Cout, Cin]; Core ML deconvolution wants [Cin, Cout, kH, kW].
    ///
    /// The output size is Keras's `deconv_output_length`, which TensorFlow's
    /// conv2d_transpose then fills (the gradient of a convolution from that
    /// size), written as the deconvolution's outputShape:
    /// - no output_padding: `same` in * s; `valid` in * s + max(k - s, 0)
    ///   (a kernel smaller than the stride leaves s - k rows of bias only);
    /// - output_padding p (0 <= p < s): (in - 1) * s + k - 2 * pad + p, pad
    ///   k / 2 for `same`, 0 for `valid`. `valid` adds p rows of bias at the
    ///   bottom; `same` crops (in - 1) * s + k - L, the smaller half first,
    ///   as TensorFlow pads a `same` convolution of L rows.
    static func transpose(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        try b.requireChannelsLast()
        let (shape, kernel) = try b.kernel(0, "kernel")
        guard shape.count == 4, shape[3] == b.shape.channels else { throw b.fail("kernel shape \(shape) does not fit \(b.shape)") }
        let (kh, kw, cout, cin) = (shape[0], shape[1], shape[2], shape[3])
        try b.expect("filters", cout, shape)
        try b.expectKernel(kh, kw, shape)
        let weights = NHWCLayout.deconvolution(kh: kh, kw: kw, cout: cout, cin: cin, from: kernel)
        let stride = try b.pair("strides", default: 1)
        let limit = ShapeInference.maximumSize
        guard [kh, kw].allSatisfy({ $0 > 0 && $0 <= limit }) else { throw b.fail("kernel shape \(shape) is out of range (1...\(limit))") }
        let same: Bool
        switch try b.string("padding") ?? "valid" {
        case "same": same = true
        case "valid": same = false
        case let other: throw b.fail("padding '\(other)' is not supported")
        }
        let outputPadding = try b.optionalPair("output_padding", minimum: 0)
        if let p = outputPadding, p.height >= stride.height || p.width >= stride.width {
            throw b.fail("output_padding \([p.height, p.width]) is not below the strides \([stride.height, stride.width]) (Keras refuses it too)")
        }
        // Each term is at most 2^30 (sizes, strides, kernels, paddings): no overflow.
        func length(_ input: Int, _ k: Int, _ s: Int, _ p: Int?) throws -> Int {
            let length: Int
            if let p { length = (input - 1) * s + k - 2 * (same ? k / 2 : 0) + p } else { length = same ? input * s : input * s + max(k - s, 0) }
            // TensorFlow runs a `same` transpose only when ceil(length / s) gives the input back.
            guard length >= 1, !same || (length + s - 1) / s == input else {
                throw b.fail("output_padding \(p ?? 0) with padding same, kernel \(k), stride \(s) gives \(length) rows from \(input), "
                             + "which TensorFlow cannot run")
            }
            return length
        }
        let outputShape = [try length(b.shape.height, kh, stride.height, outputPadding?.height),
                           try length(b.shape.width, kw, stride.width, outputPadding?.width)]
        let bias = try b.bool("use_bias") ?? true ? Weights(try b.weight(1, "bias", count: cout).values) : nil
        let conv = Convolution(outputChannels: cout, kernelChannels: cin, kernel: Size2(kh, kw), stride: stride,
                               padding: same ? .same(topLeftHeavy: false) : .explicit(.zero), isDeconvolution: true,
                               outputShape: outputShape, weights: weights, bias: bias)
        return (try fused(b, .convolution(conv)), 4)
    }

    /// Kernel [in, out]; a map input is flattened in H, W, C order first (Keras's).
    static func dense(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let (shape, kernel) = try b.kernel(0, "kernel")
        guard shape.count == 2, shape[0] == b.shape.count || shape[0] == b.shape.channels else {
            throw b.fail("kernel shape \(shape) does not fit \(b.shape.count) inputs")
        }
        let (inputs, outputs) = (shape[0], shape[1])
        // On a map Dense acts per pixel (ConvNeXt's pointwise layers): a 1x1 convolution.
        let perPixel = b.rank > 2 && (b.shape.height != 1 || b.shape.width != 1)
        if perPixel && inputs != b.shape.channels { throw b.fail("kernel shape \(shape) does not fit \(b.shape.channels) channels") }
        try b.expect("units", outputs, shape)
        let weights = NHWCLayout.transposed(inputs: inputs, outputs: outputs, from: kernel)
        let bias = try b.bool("use_bias") ?? true ? Weights(try b.weight(1, "bias", count: outputs).values) : nil
        if perPixel {
            let conv = Convolution(outputChannels: outputs, kernelChannels: inputs, kernel: Size2(1, 1), weights: weights, bias: bias)
            return (try fused(b, .convolution(conv)), b.rank)
        }
        return (try fused(b, .innerProduct(InnerProduct(inputChannels: inputs, outputChannels: outputs, weights: weights, bias: bias))), 2)
    }

    /// Weights in order: gamma (if scale), beta (if center), moving mean, moving variance.
    static func batchNorm(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let swap = try spatialSwap(b, "normalization")
        // Over H or W (axis 1 or 2 of a map): that axis becomes Core ML's channels for the norm.
        let c = swap == nil ? b.shape.channels : (b.spatialAxis() == 1 ? b.shape.height : b.shape.width)
        let (gamma, beta, stored) = try b.gammaAndBeta(channels: c)
        let mean = Weights(try b.weight(stored, "moving mean", count: c).values)
        let variance = Weights(try b.weight(stored + 1, "moving variance", count: c).values)
        let epsilon = try b.float("epsilon") ?? 0.001
        guard epsilon >= 0 else { throw b.fail("epsilon \(epsilon) is negative") }
        let norm = Op.batchNorm(BatchNorm(channels: c, epsilon: epsilon, gamma: gamma, beta: beta, mean: mean, variance: variance))
        guard let swap else { return ([b.node(norm, [b.input])], b.rank) }
        let moved = b.node(swap, [b.input], suffix: "moved")
        let normalized = b.node(norm, moved.outputs, suffix: "normalized")
        return ([moved, normalized, b.node(swap, normalized.outputs)], 4)
    }

    /// nil for the last axis; for axis 1 or 2 of a map (H or W), the
    /// permutation that swaps it with Core ML's channels (its own inverse);
    /// any other axis is refused naming the config's axis.
    static func spatialSwap(_ b: KerasBuilder, _ what: String) throws -> Op? {
        if b.isLastAxis() { return nil }
        guard b.rank == 4, let axis = b.spatialAxis() else {
            throw b.fail("only \(what) over the last axis (axis -1), or axis 1 or 2 of a map, is supported, not axis "
                         + KerasLayerLedgers.render(b.config["axis"] ?? NSNull()))
        }
        return .permute(axes: axis == 1 ? [0, 2, 1, 3] : [0, 3, 2, 1])
    }

    /// The layer's op, then its fused `activation` (if any) under the layer's name.
    static func fused(_ b: KerasBuilder, _ op: Op, input: String? = nil) throws -> [Node] {
        let function = try b.activationName()
        if function == "linear" { return [b.node(op, [input ?? b.input])] }
        let pre = b.node(op, [input ?? b.input], suffix: "preactivation")
        let channels = switch op {
        case .convolution(let conv): conv.outputChannels
        case .innerProduct(let product): product.outputChannels
        default: b.shape.channels
        }
        return [pre] + (try b.activation(function, after: pre.outputs[0], channels: channels))
    }

    static func activationLayer(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let function = try b.activationName()
        if function == "linear" { return ([], b.rank) }
        return (try b.activation(function, after: b.input, channels: b.shape.channels), b.rank)
    }

    /// Keras's named activations as Core ML layers from `input` to `output`.
    static func activationNodes(_ function: String, input: String, output: String, channels: Int, builder b: KerasBuilder) throws -> [Node] {
        func one(_ op: Op) -> [Node] { [Node(name: output, operation: op, inputs: [input], outputs: [output])] }
        switch function {
        case "relu": return one(.activation(.relu))
        case "relu6": return one(.activation(.clip(min: 0, max: 6)))
        case "sigmoid": return one(.activation(.sigmoid))
        case "tanh": return one(.activation(.tanh))
        case "softmax": return one(.softmax)
        case "elu": return one(.activation(.elu(alpha: 1)))
        case "softplus": return one(.activation(.softplus))
        case "softsign": return one(.activation(.softsign))
        case "exponential": return one(.unary(Unary(kind: .exp)))
        case "hard_sigmoid": return one(.activation(.sigmoidHard(alpha: b.hardSigmoidSlope, beta: 0.5)))
        case "selu":
            let inner = "\(output)__elu"
            return [Node(name: inner, operation: .activation(.elu(alpha: 1.6732632423543772)), inputs: [input], outputs: [inner]),
                    Node(name: output, operation: .multiply(constant: 1.0507009873554805), inputs: [inner], outputs: [output])]
        case "hard_silu", "hard_swish": return GatedActivation.hardSwish(input: input, output: output)
        case "gelu":
            // Keras's default is the exact form (approximate=False).
            return one(.defined(GELU(mode: .exact)))
        case "swish", "silu": return GatedActivation.swish(input: input, output: output)
        // Keras 3's newer activations at their defaults (keras.activations).
        case "leaky_relu": return one(.activation(.leakyRelu(alpha: 0.2)))
        case "hard_tanh": return one(.activation(.clip(min: -1, max: 1)))
        case "celu":
            // max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) with alpha 1: the ELU.
            return one(.activation(.elu(alpha: 1)))
        case "log_sigmoid":
            // -softplus(-x), which stays finite where log(sigmoid(x)) would not.
            return chain([.activation(.linear(alpha: -1, beta: 0)), .activation(.softplus), .activation(.linear(alpha: -1, beta: 0))],
                         input: input, output: output)
        case "mish": return GatedActivation.mish(input: input, output: output)
        case "tanh_shrink":
            // x - tanh(x).
            let tanh = "\(output)__tanh", negated = "\(output)__negated"
            return [Node(name: tanh, operation: .activation(.tanh), inputs: [input], outputs: [tanh]),
                    Node(name: negated, operation: .multiply(constant: -1), inputs: [tanh], outputs: [negated]),
                    Node(name: output, operation: .add(constant: 0), inputs: [input, negated], outputs: [output])]
        case "squareplus":
            // (x + sqrt(x^2 + b)) / 2 with b 4.
            let square = "\(output)__square", root = "\(output)__root", sum = "\(output)__sum"
            return [Node(name: square, operation: .multiply(constant: 1), inputs: [input, input], outputs: [square]),
                    Node(name: root, operation: .unary(Unary(kind: .sqrt, shift: 4)), inputs: [square], outputs: [root]),
                    Node(name: sum, operation: .add(constant: 0), inputs: [input, root], outputs: [sum]),
                    Node(name: output, operation: .multiply(constant: 0.5), inputs: [sum], outputs: [output])]
        case "log_softmax":
            // Over channels (Keras's last axis); the backend writes it lower as the classic layers of a model of maps.
            return [Node(output, .defined(LogSoftmax(axis: -3)), input: input)]
        case "glu":
            // a * sigmoid(b), a and b the two halves of the channels (Keras's last axis).
            guard channels % 2 == 0 else { throw b.fail("the activation 'glu' needs an even number of channels, not \(channels)") }
            let first = "\(output)__a", second = "\(output)__b", gate = "\(output)__gate"
            return [Node(name: first, operation: .slice(Slice(axis: .channel, start: 0, end: channels / 2)), inputs: [input], outputs: [first]),
                    Node(name: second, operation: .slice(Slice(axis: .channel, start: channels / 2, end: channels)), inputs: [input], outputs: [second]),
                    Node(name: gate, operation: .activation(.sigmoid), inputs: [second], outputs: [gate]),
                    Node(name: output, operation: .multiply(constant: 1), inputs: [first, gate], outputs: [output])]
        case "soft_shrink":
            // relu(x - 0.5) - relu(-x - 0.5) (threshold 0.5).
            let above = "\(output)__above", below = "\(output)__below", negated = "\(output)__negated"
            return chain([.activation(.linear(alpha: 1, beta: -0.5)), .activation(.relu)], input: input, output: above)
                + chain([.activation(.linear(alpha: -1, beta: -0.5)), .activation(.relu)], input: input, output: below)
                + [Node(name: negated, operation: .multiply(constant: -1), inputs: [below], outputs: [negated]),
                   Node(name: output, operation: .add(constant: 0), inputs: [above, negated], outputs: [output])]
        default:
            throw b.fail("the activation '\(function)' is not supported")
        }
    }

    /// `ops` one after another from `input`, the last one named `output`.
    static func chain(_ ops: [Op], input: String, output: String) -> [Node] {
        var source = input
        return ops.enumerated().map { index, op in
            let name = index == ops.count - 1 ? output : "\(output)__\(index)"
            defer { source = name }
            return Node(name: name, operation: op, inputs: [source], outputs: [name])
        }
    }

    static func relu(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let maximum = try b.float("max_value"), slope = try b.float("negative_slope") ?? 0, threshold = try b.float("threshold") ?? 0
        guard threshold == 0 else { throw b.fail("a ReLU threshold is not supported") }
        guard maximum.map({ $0 >= 0 }) ?? true else { throw b.fail("max_value \(maximum!) is negative") }
        if let maximum, slope != 0 {
            // slope * x below 0, min(x, max_value) above: the leaky ReLU capped.
            let leaky = b.node(.activation(.leakyRelu(alpha: slope)), [b.input], suffix: "leaky")
            return ([leaky, b.node(.activation(.clip(min: -.greatestFiniteMagnitude, max: maximum)), leaky.outputs)], b.rank)
        }
        let op: Op
        if let maximum { op = .activation(.clip(min: 0, max: maximum)) }
        else { op = slope == 0 ? .activation(.relu) : .activation(.leakyRelu(alpha: slope)) }
        return ([b.node(op, [b.input])], b.rank)
    }

    static func leakyRelu(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        // Keras 2 writes alpha; Keras 3 negative_slope, and takes alpha over it when given both.
        let slope = try b.float("alpha") ?? b.float("negative_slope") ?? 0.3
        return ([b.node(.activation(.leakyRelu(alpha: slope)), [b.input])], b.rank)
    }

    /// Core ML's PReLU has one slope per channel: alpha must be shared over H and W.
    static func prelu(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let (shape, alpha) = try b.weight(0, "alpha")
        let c = b.shape.channels
        guard alpha.count == c || alpha.count == 1 else {
            throw b.fail("alpha of shape \(shape) varies over H and W (set shared_axes=[1, 2]); Core ML's PReLU is per channel")
        }
        return ([b.node(.activation(.prelu(alpha: Weights(alpha))), [b.input])], b.rank)
    }

    static func elu(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        ([b.node(.activation(.elu(alpha: try b.float("alpha") ?? 1)), [b.input])], b.rank)
    }

    static func softmaxLayer(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        guard let swap = try spatialSwap(b, "softmax") else { return ([b.node(.softmax, [b.input])], b.rank) }
        let moved = b.node(swap, [b.input], suffix: "moved")
        let soft = b.node(.softmax, moved.outputs, suffix: "softmax")
        return ([moved, soft, b.node(swap, soft.outputs)], 4)
    }
}
