/// Layer normalization over the last `normalizedShape.count` axes of a
/// tensor of any rank, each group of those axes on its own:
/// `y = (x - mean) / sqrt(variance + epsilon) * gamma + beta`, the mean
/// and the (biased) variance taken over the group; `gamma` and `beta`,
/// when present, hold one value per element of the group
/// (`normalizedShape`), absent meaning 1 and 0.
public struct LayerNorm: OpDefinition, Equatable {
    /// The sizes of the normalized axes, the input's last ones.
    public var normalizedShape: [Int]
    public var epsilon: Float
    public var gamma: Weights?
    public var beta: Weights?

    public init(normalizedShape: [Int], epsilon: Float, gamma: Weights? = nil, beta: Weights? = nil) {
        self.normalizedShape = normalizedShape
        self.epsilon = epsilon
        self.gamma = gamma
        self.beta = beta
    }

    public var kindName: String { "layerNorm" }

    public func checkAttributes() throws(ModelError) {
        guard !normalizedShape.isEmpty else { throw ModelError("a layer normalization normalizes no axes") }
        try AttributeBounds.sizes(normalizedShape, "normalized size")
        try AttributeBounds.finite([epsilon], "epsilon")
        guard epsilon >= 0 else { throw ModelError("epsilon \(epsilon) is negative") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let dims = inputs[0].dimensions
        guard dims.count >= normalizedShape.count, Array(dims.suffix(normalizedShape.count)) == normalizedShape else {
            throw ModelError("normalized shape \(normalizedShape) is not the last axes of the input \(inputs[0])")
        }
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] {
        [gamma.map { NamedWeights("gamma", shape: normalizedShape, $0) }, beta.map { NamedWeights("beta", shape: normalizedShape, $0) }]
            .compactMap { $0 }
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("normalizedShape", .ints(normalizedShape), text: "over \(OpAttribute.dims(normalizedShape))"),
         OpAttribute("epsilon", .float(epsilon), text: "epsilon \(epsilon)"),
         OpAttribute("hasGamma", .bool(gamma != nil), text: nil),
         OpAttribute("hasBeta", .bool(beta != nil), text: nil)]
    }

    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int {
        // Squares and the scaling: two per element.
        guard let count = inputs.first?.dimensions.checkedProduct else { return .max }
        let (product, overflow) = count.multipliedReportingOverflow(by: 2)
        return overflow ? .max : product
    }
}
