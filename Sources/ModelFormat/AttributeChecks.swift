/// The bounds every operation's attributes must keep, checked before any
/// shape is computed from them, so that arithmetic on numbers read from a
/// file can never overflow: each size (a dimension, kernel, stride,
/// dilation, padding, scale factor, channel count) is at most
/// `maximumSize` (2^30), so a product of two and a sum of a few fit in an
/// `Int` with room to spare; larger products go through `checkedProduct`.
/// Also the rules Core ML's validator applies to a layer's own parameters
/// (input counts, clip bounds, LRN's k, crop offsets, shape ranks).
extension ShapeInference {
    /// The largest size any dimension or size attribute may have.
    public static let maximumSize = 1 << 30

    /// Checks `node`'s attributes and input count.
    /// - Throws: `ModelError` naming the node and the attribute.
    static func checkAttributes(of node: Node) throws(ModelError) {
        func fail(_ message: String) -> ModelError { ModelError(node: node.name, message) }
        func size(_ value: Int, _ what: String, minimum: Int = 1) throws(ModelError) {
            guard value >= minimum && value <= maximumSize else {
                throw fail("\(what) \(value) is out of range (\(minimum)...\(maximumSize))")
            }
        }
        func sizes(_ values: [Int], _ what: String, minimum: Int = 1) throws(ModelError) {
            for value in values { try size(value, what, minimum: minimum) }
        }
        func edges(_ e: Edges, _ what: String) throws(ModelError) {
            try sizes([e.top, e.bottom, e.left, e.right], what, minimum: 0)
        }
        func finite(_ values: [Float], _ what: String) throws(ModelError) {
            guard values.allSatisfy(\.isFinite) else { throw fail("\(what) must be finite, not \(values)") }
        }
        func inputs(_ range: ClosedRange<Int>) throws(ModelError) {
            guard range.contains(node.inputs.count) else {
                let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                    : range.upperBound == .max ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
                throw fail("has \(node.inputs.count) inputs, the operation takes \(expected)")
            }
        }
        func window(_ kernel: Size2, _ stride: Size2, _ padding: WindowPadding) throws(ModelError) {
            try sizes([kernel.height, kernel.width], "kernel size")
            try sizes([stride.height, stride.width], "stride")
            switch padding {
            case .explicit(let e): try edges(e, "padding")
            case .includeLastPixel(let pads): try sizes([pads.height, pads.width], "padding", minimum: 0)
            case .same: break
            }
        }
        switch node.operation {
        case .convolution(let conv):
            try inputs(1...1)
            try sizes([conv.outputChannels, conv.kernelChannels, conv.groups], "channel or group count")
            try window(conv.kernel, conv.stride, conv.padding)
            try sizes([conv.dilation.height, conv.dilation.width], "dilation")
            try sizes(conv.outputShape, "output size")
            guard conv.outputShape.isEmpty || (conv.isDeconvolution && conv.outputShape.count == 2) else {
                throw fail("output shape \(conv.outputShape) must be empty, or [H, W] for a deconvolution")
            }
        case .pooling(let pool):
            try inputs(1...1)
            if !pool.global { try window(pool.kernel, pool.stride, pool.padding) }
        case .innerProduct(let product):
            try inputs(1...1)
            try sizes([product.inputChannels, product.outputChannels], "channel count")
        case .batchNorm(let norm):
            try inputs(1...1)
            try size(norm.channels, "channel count")
            try finite([norm.epsilon], "epsilon")
            guard norm.epsilon >= 0 else { throw fail("epsilon \(norm.epsilon) is negative") }
        case .lrn(let lrn):
            try inputs(1...1)
            try size(lrn.localSize, "local size")
            try finite([lrn.alpha, lrn.beta, lrn.k], "alpha, beta and k")
            // Core ML's validator refuses a negative k; NeuralNetwork.proto: "must be strictly positive".
            guard lrn.k > 0 else { throw fail("k \(lrn.k) must be positive") }
        case .activation(let activation):
            try inputs(1...1)
            if case .clip(let low, let high) = activation {
                guard !low.isNaN, !high.isNaN, low <= high else { throw fail("clip bounds [\(low), \(high)] are not ordered") }
            }
        case .scale(let scale):
            try inputs(1...1)
            try constantShape(scale.shape, "scale", node)
            if scale.bias != nil { try constantShape(scale.biasShape, "scale bias", node) }
        case .bias(let bias):
            try inputs(1...1)
            try constantShape(bias.shape, "bias", node)
        case .softmax, .unary, .l2Normalize, .flatten, .reduce:
            try inputs(1...1)
        case .concat:
            // Core ML's validator: at least 2 inputs.
            try inputs(2...Int.max)
        case .add, .multiply, .maximum, .minimum, .average:
            try inputs(1...Int.max)
        case .reshape(let target, _):
            try inputs(1...1)
            guard target.count == 3 else { throw fail("reshape target \(target) is not [C, H, W]") }
            try sizes(target, "reshape size")
        case .permute:
            try inputs(1...1)
        case .padding(let padding):
            try inputs(1...1)
            try edges(padding.edges, "padding")
            if case .constant(let value) = padding.kind { try finite([value], "the padding value") }
        case .crop(.edges(let e)):
            try inputs(1...1)
            try edges(e, "crop amount")
        case .crop(.like(let offset)):
            try inputs(2...2)
            guard offset.count == 2 else { throw fail("crop offset \(offset) is not [top, left]") }
            try sizes(offset, "crop offset", minimum: 0)
        case .slice(let slice):
            try inputs(1...1)
            try size(slice.stride, "slice stride")
            guard slice.start.magnitude <= UInt(maximumSize), slice.end.magnitude <= UInt(maximumSize) else {
                throw fail("slice bounds \(slice.start)..<\(slice.end) are out of range")
            }
        case .split:
            try inputs(1...1)
        case .upsample(let upsample):
            try inputs(1...1)
            try sizes([upsample.scale.height, upsample.scale.width], "scale factor")
        case .constant(let shape, _):
            try inputs(0...0)
            guard shape.count == 3 else { throw fail("constant shape \(shape) is not [C, H, W]") }
            try sizes(shape, "constant size")
        case .defined(let op):
            try inputs(op.definition.inputCounts)
            do { try op.definition.checkAttributes() } catch { throw fail(error.message) }
        }
    }

    /// A scale or bias constant's shape: [C], [1], [C, H, W] or [1, H, W]
    /// (Core ML's validator takes 1 or 3 dimensions).
    static func constantShape(_ shape: [Int], _ what: String, _ node: Node) throws(ModelError) {
        guard shape.count == 1 || shape.count == 3 else {
            throw ModelError(node: node.name, "\(what) shape \(shape) is not [C] or [C, H, W]")
        }
        for value in shape where value < 1 || value > maximumSize {
            throw ModelError(node: node.name, "\(what) shape \(shape) has a size out of range (1...\(maximumSize))")
        }
    }
}
