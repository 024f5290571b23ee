import ModelFormat
import CaffeSchema
import Protobuf

/// The Caffe op table: layer type -> mapping to ModelFormat nodes. A new
/// layer type is one entry and one function. Dropout and Split are not here:
/// the converter makes their tops aliases of their bottom.
enum CaffeLayerTable {
    typealias Mapping = @Sendable (LayerBuilder) throws -> [Node]

    /// The layer types the graph builder takes besides the table's:
    /// inputs, identities at inference, and SSD's detection stage.
    static let builderTypes: Set<String> = ["Input", "Dropout", "Split", "Silence", "PriorBox", "DetectionOutput"]

    /// Whether the converter takes layers of `type`.
    static func takes(_ type: String) -> Bool { mappings[type] != nil || builderTypes.contains(type) }

    static let mappings: [String: Mapping] = [
        "Convolution": convolution,
        "Deconvolution": convolution,
        "Pooling": pooling,
        "InnerProduct": innerProduct,
        "ReLU": relu,
        "PReLU": prelu,
        "Sigmoid": { [ $0.node(.activation(.sigmoid), inputs: [$0.input], output: $0.output) ] },
        "TanH": { [ $0.node(.activation(.tanh), inputs: [$0.input], output: $0.output) ] },
        "ELU": elu,
        "AbsVal": { [ $0.node(.unary(Unary(kind: .abs)), inputs: [$0.input], output: $0.output) ] },
        "Power": power,
        "BatchNorm": batchNorm,
        "Scale": scale,
        "Bias": bias,
        "LRN": lrn,
        "Softmax": softmax,
        "Concat": concat,
        "Eltwise": eltwise,
        "Flatten": flatten,
        "Reshape": reshape,
        "Slice": slice,
        "Crop": crop,
        "Permute": permute,
        "Normalize": normalize,
        "ArgMax": argMax,
    ]

    static func convolution(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(1...1)
        guard let p = b.layer.params.convolution?.pointee else { throw b.fail("has no convolution_param") }
        guard p.has_num_output != 0, p.num_output > 0 else { throw b.fail("convolution_param has no num_output") }
        // Caffe (base_conv_layer.cpp): each of these once or once per spatial axis, and not with its _h/_w form.
        for (name, count, split) in [("kernel_size", p.n_kernel_size, p.has_kernel_h != 0 || p.has_kernel_w != 0),
                                     ("stride", p.n_stride, p.has_stride_h != 0 || p.has_stride_w != 0),
                                     ("pad", p.n_pad, p.has_pad_h != 0 || p.has_pad_w != 0), ("dilation", p.n_dilation, false)] {
            guard count <= 2 else { throw b.fail("\(name) has \(count) values; a 2-D convolution takes 1 or 2") }
            guard count == 0 || !split else { throw b.fail("\(name) is given with \(name == "kernel_size" ? "kernel" : name)_h/_w; Caffe takes one form") }
        }
        let kernel = windowSize(CArrays.array(p.kernel_size, p.n_kernel_size), h: p.has_kernel_h != 0 ? p.kernel_h : nil,
                                w: p.has_kernel_w != 0 ? p.kernel_w : nil, default: 0)
        guard kernel.height > 0, kernel.width > 0 else { throw b.fail("convolution_param has no kernel_size") }
        let stride = windowSize(CArrays.array(p.stride, p.n_stride), h: p.has_stride_h != 0 ? p.stride_h : nil,
                                w: p.has_stride_w != 0 ? p.stride_w : nil, default: 1)
        let pad = windowSize(CArrays.array(p.pad, p.n_pad), h: p.has_pad_h != 0 || p.has_pad_w != 0 ? p.pad_h : nil,
                             w: p.has_pad_h != 0 || p.has_pad_w != 0 ? p.pad_w : nil, default: 0)
        let dilation = windowSize(CArrays.array(p.dilation, p.n_dilation), h: nil, w: nil, default: 1)
        let limit = ShapeInference.maximumSize
        for (name, size) in [("kernel size", kernel), ("stride", stride), ("dilation", dilation)] where !(1...limit).contains(size.height) || !(1...limit).contains(size.width) {
            throw b.fail("\(name) \(size.height)x\(size.width) is out of range (1...\(limit))")
        }
        guard pad.height <= limit, pad.width <= limit else { throw b.fail("padding \(pad.height)x\(pad.width) is out of range (0...\(limit))") }
        let groups = Int(p.group)
        let outputs = Int(p.num_output)
        let inputChannels = b.inputShape.channels
        guard groups > 0, inputChannels % groups == 0, outputs % groups == 0 else {
            throw b.fail("\(inputChannels) input and \(outputs) output channels do not split into \(groups) groups")
        }
        let isDeconvolution = b.layer.type == "Deconvolution"
        // Caffe stores Deconvolution weights [in, out/groups, kH, kW]: Core ML's layout, kernelChannels = in.
        let kernelChannels = isDeconvolution ? inputChannels : inputChannels / groups
        let weightShape = (isDeconvolution ? [inputChannels, outputs / groups] : [outputs, kernelChannels]) + [kernel.height, kernel.width]
        let weights = try b.blob(0, shape: weightShape, "weights")
        let bias = p.bias_term != 0 ? try b.blob(1, shape: [outputs], "bias") : nil
        let edges = Edges(top: pad.height, bottom: pad.height, left: pad.width, right: pad.width)
        var outputShape: [Int] = []
        if isDeconvolution {
            // Caffe: (in - 1) * stride + dilation * (k - 1) + 1 - 2 * pad, stated explicitly for Core ML
            // (each term at most 2^60: the sizes are bounded above).
            func size(_ input: Int, _ k: Int, _ s: Int, _ d: Int, _ p: Int) -> Int { (input - 1) * s + d * (k - 1) + 1 - 2 * p }
            outputShape = [size(b.inputShape.height, kernel.height, stride.height, dilation.height, pad.height),
                           size(b.inputShape.width, kernel.width, stride.width, dilation.width, pad.width)]
        }
        let conv = Convolution(outputChannels: outputs, kernelChannels: kernelChannels, groups: groups, kernel: kernel,
                               stride: stride, dilation: dilation, padding: .explicit(edges), isDeconvolution: isDeconvolution,
                               outputShape: outputShape, weights: weights, bias: bias)
        return [b.node(.convolution(conv), inputs: [b.input], output: b.output)]
    }

    /// Caffe pooling rounds the output size up (ceil) unless round_mode is
    /// FLOOR; Core ML's includeLastPixel padding reproduces the ceil form.
    static func pooling(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(1...1)
        guard let p = b.layer.params.pooling?.pointee else { throw b.fail("has no pooling_param") }
        let kind: Pooling.Kind
        switch p.pool {
        case CAFFE__POOLING_PARAMETER__POOL_METHOD__MAX: kind = .max
        case CAFFE__POOLING_PARAMETER__POOL_METHOD__AVE: kind = .average
        default: throw b.fail("STOCHASTIC pooling has no Core ML equivalent")
        }
        if p.global_pooling != 0 {
            // pooling_layer.cpp: no window, no padding and stride 1 with global_pooling.
            guard p.has_kernel_size == 0, p.has_kernel_h == 0, p.has_kernel_w == 0, p.pad == 0, p.pad_h == 0, p.pad_w == 0,
                  p.stride == 1, p.has_stride_h == 0 || p.stride_h == 1, p.has_stride_w == 0 || p.stride_w == 1 else {
                throw b.fail("global_pooling is given with a kernel size, padding or stride (Caffe refuses them together)")
            }
            let pool = Pooling(kind: kind, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)
            return [b.node(.pooling(pool), inputs: [b.input], output: b.output)]
        }
        let kernel = windowSize(p.has_kernel_size != 0 ? [p.kernel_size] : [], h: p.has_kernel_h != 0 ? p.kernel_h : nil,
                                w: p.has_kernel_w != 0 ? p.kernel_w : nil, default: 0)
        guard kernel.height > 0, kernel.width > 0 else { throw b.fail("pooling_param has no kernel_size") }
        let stride = windowSize([p.stride], h: p.has_stride_h != 0 ? p.stride_h : nil, w: p.has_stride_w != 0 ? p.stride_w : nil,
                                default: 1)
        let pad = windowSize([p.pad], h: p.has_pad_h != 0 || p.has_pad_w != 0 ? p.pad_h : nil,
                             w: p.has_pad_h != 0 || p.has_pad_w != 0 ? p.pad_w : nil, default: 0)
        guard pad.height < kernel.height, pad.width < kernel.width else {
            throw b.fail("pad \(pad.height)x\(pad.width) is not smaller than the kernel \(kernel.height)x\(kernel.width) (Caffe refuses it)")
        }
        let padding: WindowPadding = p.round_mode == CAFFE__POOLING_PARAMETER__ROUND_MODE__FLOOR
            ? .explicit(Edges(top: pad.height, bottom: pad.height, left: pad.width, right: pad.width))
            : .includeLastPixel(pad)
        let pool = Pooling(kind: kind, kernel: kernel, stride: stride, padding: padding)
        return [b.node(.pooling(pool), inputs: [b.input], output: b.output)]
    }

    /// Flattens its input (in C, H, W order) first when it is a map, since
    /// Core ML's inner product takes vectors.
    static func innerProduct(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(1...1)
        guard let p = b.layer.params.innerProduct?.pointee else { throw b.fail("has no inner_product_param") }
        let axis = try b.axis(Int(p.axis))
        guard axis >= 1 else { throw b.fail("an inner product over the batch axis (axis \(p.axis)) is not supported") }
        let inputs = b.inputShape.dimensions[(axis - 1)...].reduce(1, *), outputs = Int(p.num_output)
        guard outputs > 0 else { throw b.fail("inner_product_param has no num_output") }
        var weights = try b.blob(0, shape: p.transpose != 0 ? [inputs, outputs] : [outputs, inputs], "weights")
        if p.transpose != 0 && weights.isLoaded {
            // Stored [in, out]; Core ML wants [out, in]. (Without weights, a
            // structure-only read, there are no values to reorder.)
            let values = weights.values
            weights = Weights((0..<outputs * inputs).map { index in values[(index % inputs) * outputs + index / inputs] })
        }
        let bias = p.bias_term != 0 ? try b.blob(1, shape: [outputs], "bias") : nil
        if axis > 1 { return innerProduct(b, axis: axis, inputs: inputs, outputs: outputs, weights: weights, bias: bias) }
        var nodes: [Node] = []
        var source = b.input
        if b.inputShape.height != 1 || b.inputShape.width != 1 {
            source = b.temporary("flatten")
            nodes.append(b.node(.flatten(.channelFirst), inputs: [b.input], output: source, suffix: "flatten"))
        }
        let product = InnerProduct(inputChannels: inputs, outputChannels: outputs, weights: weights, bias: bias)
        nodes.append(b.node(.innerProduct(product), inputs: [source], output: b.output))
        return nodes
    }

    /// Caffe's BatchNorm keeps a third blob, a scale factor s: the real
    /// statistics are mean / s and var / s, both 0 when s is 0. It does not
    /// scale or shift (a following Scale layer does); the two fold later.
    static func batchNorm(_ b: LayerBuilder) throws -> [Node] {
        try b.expectBottoms(1...1)
        let channels = b.inputShape.channels
        let eps = b.layer.params.batchNorm.map { $0.pointee.eps } ?? 1e-5
        let mean = try b.blob(0, shape: [channels], "mean").values
        let variance = try b.blob(1, shape: [channels], "variance").values
        let factor = try b.blob(2, shape: [1], "moving-average factor")[0]
        let scale: Float = factor == 0 ? 0 : 1 / factor
        let norm = BatchNorm(channels: channels, epsilon: eps, gamma: Weights([Float](repeating: 1, count: channels)),
                             beta: Weights([Float](repeating: 0, count: channels)), mean: Weights(mean.map { $0 * scale }),
                             variance: Weights(variance.map { $0 * scale }))
        return [b.node(.batchNorm(norm), inputs: [b.input], output: b.output)]
    }

    static func scale(_ b: LayerBuilder) throws -> [Node] {
        let p = b.layer.params.scale?.pointee
        if b.inputs.count == 2 { return try scaleByBottom(b, axis: Int(p?.axis ?? 1), biasTerm: (p?.bias_term ?? 0) != 0) }
        try b.expectBottoms(1...1)
        if (p?.num_axes ?? 1) == 0 {
            // num_axes 0: one scalar scale (and bias) for every value, whatever the axis.
            let factor = try b.blob(0, shape: [1], "scale")[0]
            let shift = (p?.bias_term ?? 0) != 0 ? try b.blob(1, shape: [1], "bias")[0] : 0
            return [b.node(.activation(.linear(alpha: factor, beta: shift)), inputs: [b.input], output: b.output)]
        }
        guard (p?.axis ?? 1) == 1, (p?.num_axes ?? 1) == 1 else {
            throw b.fail("axis \(p?.axis ?? 1) num_axes \(p?.num_axes ?? 1) is not supported (per-channel scales, axis 1 num_axes 1, and scalar ones, num_axes 0, are)")
        }
        let channels = b.inputShape.channels
        let scale = try b.blob(0, shape: [channels], "scale")
        let bias = (p?.bias_term ?? 0) != 0 ? try b.blob(1, shape: [channels], "bias") : nil
        let op = Op.scale(Scale(shape: [channels], scale: scale, biasShape: bias == nil ? [] : [channels], bias: bias))
        return [b.node(op, inputs: [b.input], output: b.output)]
    }

    static func bias(_ b: LayerBuilder) throws -> [Node] {
        guard b.inputs.count == 1 else { throw b.fail("a bias taken from a second bottom is not supported") }
        let channels = b.inputShape.channels
        return [b.node(.bias(Bias(shape: [channels], bias: try b.blob(0, shape: [channels], "bias"))), inputs: [b.input], output: b.output)]
    }
}
