/// y = gamma * (x - mean) / sqrt(variance + epsilon) + beta, per channel.
public struct BatchNorm: Equatable, Sendable {
    public var channels: Int
    public var epsilon: Float
    public var gamma: Weights
    public var beta: Weights
    public var mean: Weights
    public var variance: Weights
    /// Use the input's own statistics instead of `mean` and `variance`.
    public var computeMeanVar: Bool
    /// With `computeMeanVar`: statistics per channel over H and W.
    public var instanceNormalization: Bool

    public init(channels: Int, epsilon: Float, gamma: Weights, beta: Weights, mean: Weights, variance: Weights,
                computeMeanVar: Bool = false, instanceNormalization: Bool = false) {
        self.channels = channels
        self.epsilon = epsilon
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.computeMeanVar = computeMeanVar
        self.instanceNormalization = instanceNormalization
    }
}

/// Local response normalization across channels (Core ML's form):
/// `y = x / (k + alpha / localSize * sum_window(x^2))^beta`.
public struct LRN: Equatable, Sendable {
    public var alpha: Float
    public var beta: Float
    public var localSize: Int
    public var k: Float

    public init(alpha: Float, beta: Float, localSize: Int, k: Float) {
        self.alpha = alpha
        self.beta = beta
        self.localSize = localSize
        self.k = k
    }
}

extension BatchNorm: OpDefinition {
    public var kindName: String { "batchNorm" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.size(channels, "channel count")
        try AttributeBounds.finite([epsilon], "epsilon")
        guard epsilon >= 0 else { throw ModelError("epsilon \(epsilon) is negative") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        guard channels == inputs[0].channels else {
            throw ModelError("normalizes \(channels) channels, its input has \(inputs[0].channels)")
        }
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] {
        [NamedWeights("gamma", shape: [gamma.count], gamma), NamedWeights("beta", shape: [beta.count], beta),
         NamedWeights("mean", shape: [mean.count], mean), NamedWeights("variance", shape: [variance.count], variance)]
    }

    public func checkWeights() throws(ModelError) {
        for (weights, what) in [(gamma, "gamma"), (beta, "beta"), (mean, "mean"), (variance, "variance")] {
            try AttributeBounds.weights(weights, count: channels, what)
        }
    }

    public var attributes: [OpAttribute] {
        [OpAttribute("channels", .int(channels), text: nil),
         OpAttribute("epsilon", .float(epsilon), text: epsilon == 1e-5 ? nil : "epsilon \(epsilon)"),
         OpAttribute("computeMeanVar", .bool(computeMeanVar), text: computeMeanVar ? "compute mean/var" : nil),
         OpAttribute("instanceNormalization", .bool(instanceNormalization), text: instanceNormalization ? "instance normalization" : nil)]
    }
}

extension LRN: OpDefinition {
    public var kindName: String { "lrn" }
    public var takesAnyRank: Bool { false }

    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.size(localSize, "local size")
        try AttributeBounds.finite([alpha, beta, k], "alpha, beta and k")
        // Core ML's validator refuses a negative k; NeuralNetwork.proto: "must be strictly positive".
        guard k > 0 else { throw ModelError("k \(k) must be positive") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] { [inputs[0]] }

    public var attributes: [OpAttribute] {
        [OpAttribute("localSize", .int(localSize), text: "size \(localSize)"),
         OpAttribute("alpha", .float(alpha), text: "alpha \(alpha)"),
         OpAttribute("beta", .float(beta), text: "beta \(beta)"),
         OpAttribute("k", .float(k), text: k == 1 ? nil : "k \(k)")]
    }
}

/// `Op.l2Normalize`: x / sqrt(sum(x^2) + epsilon) over C, H and W.
public struct L2Normalize: OpDefinition, Equatable {
    public var epsilon: Float
    public var kindName: String { "l2Normalize" }
    public var takesAnyRank: Bool { false }
    /// As batch norm's: a finite epsilon of 0 or more (a negative one takes the root of a negative sum).
    public func checkAttributes() throws(ModelError) {
        try AttributeBounds.finite([epsilon], "epsilon")
        guard epsilon >= 0 else { throw ModelError("epsilon \(epsilon) is negative") }
    }
    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] { [inputs[0]] }
    public var attributes: [OpAttribute] {
        [OpAttribute("epsilon", .float(epsilon), text: epsilon == 1e-6 ? nil : "epsilon \(epsilon)")]
    }
}

