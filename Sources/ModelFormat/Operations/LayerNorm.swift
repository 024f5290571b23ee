/// Layer normalization over consecutive axes of a tensor, each group of
/// values along them on its own:
/// `y = (x - mean) / sqrt(variance + epsilon) * gamma + beta`, the mean
/// and the (biased) variance taken over the group; `gamma` and `beta`,
/// when present, hold one value per element of the group
/// (`normalizedShape`), absent meaning 1 and 0. The axes are the input's
/// last `normalizedShape.count` ones (`axis` -1, any rank), or the
/// channels of a [C, H, W] map (`axis` -3, one axis: Keras's layer over
/// the channels of an NHWC image).
public struct LayerNorm: OpDefinition, Equatable {
    /// The sizes of the normalized axes.
    public var normalizedShape: [Int]
    public var epsilon: Float
    public var gamma: Weights?
    public var beta: Weights?
    /// The last normalized axis, counted from the end: -1 or -3.
    public var axis: Int

    public init(normalizedShape: [Int], epsilon: Float, gamma: Weights? = nil, beta: Weights? = nil, axis: Int = -1) {
        self.normalizedShape = normalizedShape
        self.epsilon = epsilon
        self.gamma = gamma
        self.beta = beta
        self.axis = axis
    }

    /// Normalization over the channels of a [C, H, W] map (`axis` -3).
    public static func overChannels(_ channels: Int, epsilon: Float, gamma: Weights?, beta: Weights?) -> LayerNorm {
        LayerNorm(normalizedShape: [channels], epsilon: epsilon, gamma: gamma, beta: beta, axis: -3)
    }

    public var kindName: String { "layerNorm" }

    public func checkAttributes() throws(ModelError) {
        guard !normalizedShape.isEmpty else { throw ModelError("a layer normalization normalizes no axes") }
        guard axis == -1 || (axis == -3 && normalizedShape.count == 1) else {
            throw ModelError("a layer normalization ends at axis -1 (the last axes) or -3 (the channels of a map, one axis), not \(axis) "
                             + "with \(normalizedShape.count) axes")
        }
        try AttributeBounds.sizes(normalizedShape, "normalized size")
        try AttributeBounds.finite([epsilon], "epsilon")
        guard epsilon >= 0 else { throw ModelError("epsilon \(epsilon) is negative") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let dims = inputs[0].dimensions
        let end = dims.count + 1 + axis
        guard end >= normalizedShape.count, Array(dims[(end - normalizedShape.count)..<end]) == normalizedShape else {
            let which = axis == -1 ? "the last axes" : "the channels"
            throw ModelError("normalized shape \(normalizedShape) is not \(which) of the input \(inputs[0])")
        }
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] {
        [gamma.map { NamedWeights("gamma", shape: normalizedShape, $0) }, beta.map { NamedWeights("beta", shape: normalizedShape, $0) }]
            .compactMap { $0 }
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("normalizedShape", .ints(normalizedShape), text: "over \(OpAttribute.dims(normalizedShape))"),
         OpAttribute("axis", .int(axis), text: axis == -1 ? nil : "axis \(axis)"),
         OpAttribute("epsilon", .float(epsilon), text: "epsilon \(epsilon)"),
         OpAttribute("hasGamma", .bool(gamma != nil), text: nil),
         OpAttribute("hasBeta", .bool(beta != nil), text: nil)]
    }
}
