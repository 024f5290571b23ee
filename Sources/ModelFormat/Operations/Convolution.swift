/// A 2-D convolution or deconvolution (transposed convolution).
///
/// Weights are [outputChannels, kernelChannels, kH, kW] for a convolution,
/// where kernelChannels = input channels / groups, and
/// [kernelChannels, outputChannels / groups, kH, kW] for a deconvolution,
/// where kernelChannels = all the input channels (as coremltools writes it
/// and Caffe stores Deconvolution weights).
public struct Convolution: Equatable, Sendable {
    public var outputChannels: Int
    public var kernelChannels: Int
    public var groups: Int
    public var kernel: Size2
    public var stride: Size2
    public var dilation: Size2
    public var padding: WindowPadding
    public var isDeconvolution: Bool
    /// Output [H, W] of a deconvolution, when fixed; empty otherwise.
    public var outputShape: [Int]
    public var weights: Weights
    public var bias: Weights?

    public init(outputChannels: Int, kernelChannels: Int, groups: Int = 1, kernel: Size2, stride: Size2 = Size2(square: 1),
                dilation: Size2 = Size2(square: 1), padding: WindowPadding = .explicit(.zero), isDeconvolution: Bool = false,
                outputShape: [Int] = [], weights: Weights, bias: Weights? = nil) {
        self.outputChannels = outputChannels
        self.kernelChannels = kernelChannels
        self.groups = groups
        self.kernel = kernel
        self.stride = stride
        self.dilation = dilation
        self.padding = padding
        self.isDeconvolution = isDeconvolution
        self.outputShape = outputShape
        self.weights = weights
        self.bias = bias
    }

    /// Number of weight values the attributes call for (nil when the
    /// product overflows: attributes from a hostile file).
    public var expectedWeightCount: Int? {
        isDeconvolution
            ? [kernelChannels, outputChannels / max(groups, 1), kernel.height, kernel.width].checkedProduct
            : [outputChannels, kernelChannels, kernel.height, kernel.width].checkedProduct
    }
}

extension Convolution: OpDefinition {
    public var kindName: String { isDeconvolution ? "deconvolution" : "convolution" }
    public var takesAnyRank: Bool { false }
    public var takesBatchedMaps: Bool { !isDeconvolution }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.sizes([outputChannels, kernelChannels, groups], "channel or group count")
        try AttributeBounds.window(kernel, stride, padding)
        if case .includeLastPixel = padding {
            throw ModelError("a convolution cannot use pooling's include-last-pixel padding")
        }
        try AttributeBounds.sizes([dilation.height, dilation.width], "dilation")
        try AttributeBounds.sizes(outputShape, "output size")
        guard outputShape.isEmpty || (isDeconvolution && outputShape.count == 2) else {
            throw ModelError("output shape \(outputShape) must be empty, or [H, W] for a deconvolution")
        }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let input = inputs[0]
        guard groups > 0, outputChannels % groups == 0 else {
            throw ModelError("\(outputChannels) output channels do not split into \(groups) groups")
        }
        if isDeconvolution {
            guard input.channels == kernelChannels, input.channels % groups == 0 else {
                throw ModelError("expects \(kernelChannels) input channels in \(groups) groups, gets \(input.channels)")
            }
            if outputShape.count == 2 {
                return [TensorShape(channels: outputChannels, height: outputShape[0], width: outputShape[1])]
            }
            func deconvolved(_ size: Int, _ kernel: Int, _ stride: Int, _ dilation: Int, _ pads: Int) -> Int {
                (size - 1) * stride + (kernel - 1) * dilation + 1 - pads
            }
            var padsHeight = 0, padsWidth = 0
            if case .explicit(let e) = padding {
                padsHeight = e.top + e.bottom
                padsWidth = e.left + e.right
            }
            if case .same = padding {
                return [TensorShape(channels: outputChannels, height: input.height * stride.height, width: input.width * stride.width)]
            }
            return [TensorShape(channels: outputChannels,
                                height: deconvolved(input.height, kernel.height, stride.height, dilation.height, padsHeight),
                                width: deconvolved(input.width, kernel.width, stride.width, dilation.width, padsWidth))]
        }
        guard input.channels == kernelChannels * groups else {
            throw ModelError("expects \(kernelChannels) x \(groups) groups = \(kernelChannels * groups) input channels, gets \(input.channels)")
        }
        let height = try WindowPadding.output(input.height, kernel.height, stride.height, dilation.height, padding, vertical: true)
        let width = try WindowPadding.output(input.width, kernel.width, stride.width, dilation.width, padding, vertical: false)
        return [TensorShape(channels: outputChannels, height: height, width: width)]
    }

    public var weightTensors: [NamedWeights] {
        let shape = isDeconvolution
            ? [kernelChannels, outputChannels / max(groups, 1), kernel.height, kernel.width]
            : [outputChannels, kernelChannels, kernel.height, kernel.width]
        return [NamedWeights("weights", shape: shape, weights)] + (bias.map { [NamedWeights("bias", shape: [$0.count], $0)] } ?? [])
    }

    public func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(weights, count: expectedWeightCount, "weights")
        try AttributeBounds.weights(bias, count: outputChannels, "bias")
    }

    public var attributes: [OpAttribute] {
        var list = [OpAttribute("outputChannels", .int(outputChannels), text: nil),
                    OpAttribute("kernelChannels", .int(kernelChannels), text: nil),
                    .size("kernel", kernel, hideUnit: false)]
        list.append(.size("stride", stride))
        list.append(.size("dilation", dilation))
        list += OpAttribute.padding(padding)
        list.append(OpAttribute("groups", .int(groups), text: groups == 1 ? nil : "groups \(groups)"))
        if !outputShape.isEmpty {
            list.append(OpAttribute("outputShape", .ints(outputShape), text: "output \(outputShape.map(String.init).joined(separator: "x"))"))
        }
        list.append(OpAttribute("hasBias", .bool(bias != nil), text: bias == nil ? "no bias" : nil))
        return list
    }

    /// A convolution: every output value takes one kernel's worth. A
    /// deconvolution: every input pixel meets every weight once, and the
    /// input is about the output divided by the stride.
    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int {
        guard let shape = outputs.first, stride.height > 0, stride.width > 0 else { return 0 }
        let factors = isDeconvolution ? [weights.count, shape.height / stride.height, shape.width / stride.width]
                                      : [shape.count, kernelChannels, kernel.height, kernel.width]
        guard factors.allSatisfy({ $0 >= 0 }) else { return 0 }
        return factors.checkedProduct ?? .max
    }
}

extension WindowPadding {
    /// Output length of a sliding window along one axis.
    static func output(_ size: Int, _ kernel: Int, _ stride: Int, _ dilation: Int, _ padding: WindowPadding,
                       vertical: Bool) throws(ModelError) -> Int {
        guard kernel > 0, stride > 0, dilation > 0 else {
            throw ModelError("kernel \(kernel), stride \(stride) and dilation \(dilation) must be positive")
        }
        let extent = (kernel - 1) * dilation + 1
        switch padding {
        case .explicit(let e):
            let padded = size + (vertical ? e.top + e.bottom : e.left + e.right)
            guard padded >= extent else { throw ModelError("window \(extent) is larger than the padded input \(padded)") }
            return (padded - extent) / stride + 1
        case .same:
            return (size + stride - 1) / stride
        case .includeLastPixel(let pads):
            // Caffe's pooling: round up, then, when there is any padding (on
            // either axis, as Caffe checks), drop a last window that would
            // start in the bottom/right padding.
            let pad = vertical ? pads.height : pads.width
            guard size + 2 * pad >= kernel else { throw ModelError("window \(kernel) is larger than the padded input \(size + 2 * pad)") }
            var output = (size + 2 * pad - kernel + stride - 1) / stride + 1
            if (pads.height > 0 || pads.width > 0) && (output - 1) * stride >= size + pad { output -= 1 }
            return output
        }
    }
}
