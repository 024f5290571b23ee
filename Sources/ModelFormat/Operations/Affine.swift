/// y = scale * x (+ bias), broadcasting [C] or [1] or [C, H, W] constants.
public struct Scale: Equatable, Sendable {
    public var shape: [Int]
    public var scale: Weights
    public var biasShape: [Int]
    public var bias: Weights?

    public init(shape: [Int], scale: Weights, biasShape: [Int] = [], bias: Weights? = nil) {
        self.shape = shape
        self.scale = scale
        self.biasShape = biasShape
        self.bias = bias
    }
}

/// y = x + bias, broadcasting [C] or [1] or [C, H, W] constants.
public struct Bias: Equatable, Sendable {
    public var shape: [Int]
    public var bias: Weights

    public init(shape: [Int], bias: Weights) {
        self.shape = shape
        self.bias = bias
    }
}

extension Scale: OpDefinition {
    public var kindName: String { "scale" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.constantShape(shape, "scale")
        if bias != nil { try AttributeBounds.constantShape(biasShape, "scale bias") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try TensorShape.checkBroadcast(shape, "scale", to: inputs[0])
        if bias != nil { try TensorShape.checkBroadcast(biasShape, "scale bias", to: inputs[0]) }
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] {
        [NamedWeights("scale", shape: shape, scale)]
            + (bias.map { [NamedWeights("bias", shape: biasShape.isEmpty ? [$0.count] : biasShape, $0)] } ?? [])
    }

    public func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(scale, count: shape.checkedProduct, "scale")
        try AttributeBounds.weights(bias, count: biasShape.checkedProduct, "bias")
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("shape", .ints(shape), text: "shape \(OpAttribute.dims(shape))"),
         OpAttribute("hasBias", .bool(bias != nil), text: bias != nil ? "bias \(OpAttribute.dims(biasShape))" : nil)]
    }
}

extension Bias: OpDefinition {
    public var kindName: String { "bias" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.constantShape(shape, "bias")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        try TensorShape.checkBroadcast(shape, "bias", to: inputs[0])
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] { [NamedWeights("bias", shape: shape, bias)] }

    public var attributes: [OpAttribute] {
        [OpAttribute("shape", .ints(shape), text: "shape \(OpAttribute.dims(shape))")]
    }
}

extension TensorShape {
    /// A scale or bias constant of shape [1], [C], [1, H, W] or [C, H, W] of this input.
    static func checkBroadcast(_ shape: [Int], _ what: String, to input: TensorShape) throws(ModelError) {
        let fits = switch shape.count {
        case 1: shape[0] == 1 || shape[0] == input.channels
        case 3: (shape[0] == 1 || shape[0] == input.channels) && shape[1] == input.height && shape[2] == input.width
        default: false
        }
        guard fits else { throw ModelError("\(what) of shape \(shape) does not fit the input \(input)") }
    }
}
