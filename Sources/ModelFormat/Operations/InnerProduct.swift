/// A fully connected layer over the flattened [C, H, W] input (C*H*W must
/// equal inputChannels). Weights are [outputChannels, inputChannels].
public struct InnerProduct: Equatable, Sendable {
    public var inputChannels: Int
    public var outputChannels: Int
    public var weights: Weights
    public var bias: Weights?

    public init(inputChannels: Int, outputChannels: Int, weights: Weights, bias: Weights? = nil) {
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.weights = weights
        self.bias = bias
    }
}

extension InnerProduct: OpDefinition {
    public var kindName: String { "innerProduct" }
    public var takesAnyRank: Bool { false }
    public var takesBatchedMaps: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.sizes([inputChannels, outputChannels], "channel count")
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let first = inputs[0]
        // Core ML (specifications 1-3) takes only vectors here.
        guard first.height == 1 && first.width == 1 else {
            throw ModelError("takes a [C, 1, 1] vector, gets \(first): flatten its input first")
        }
        guard first.count == inputChannels else {
            throw ModelError("expects \(inputChannels) input values, gets \(first) = \(first.count)")
        }
        return [TensorShape(channels: outputChannels)]
    }

    public var weightTensors: [NamedWeights] {
        [NamedWeights("weights", shape: [outputChannels, inputChannels], weights)]
            + (bias.map { [NamedWeights("bias", shape: [$0.count], $0)] } ?? [])
    }

    public func checkWeights() throws(ModelError) {
        try AttributeBounds.weights(weights, count: [inputChannels, outputChannels].checkedProduct, "weights")
        try AttributeBounds.weights(bias, count: outputChannels, "bias")
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("inputChannels", .int(inputChannels), text: nil),
         OpAttribute("outputChannels", .int(outputChannels), text: nil),
         OpAttribute("hasBias", .bool(bias != nil), text: bias == nil ? "no bias" : nil)]
    }

    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int {
        guard inputChannels >= 0, outputChannels >= 0 else { return 0 }
        return [inputChannels, outputChannels].checkedProduct ?? .max
    }
}
