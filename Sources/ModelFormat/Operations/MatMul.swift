/// The matrix product over the last two axes, numpy's `matmul`:
/// [..., M, K] x [..., K, N] -> [..., M, N], the leading (batch) axes
/// broadcast. With two inputs it multiplies them (either transposed
/// first); with one it multiplies by the constant `weights` and adds
/// `bias`: [..., K] -> [..., N].
public struct MatMul: OpDefinition, Equatable {
    public var transposeA: Bool
    public var transposeB: Bool
    /// The constant right-hand matrix, stored [N, K] (outputs x inputs, as
    /// an inner product's), for the one-input form.
    public var weights: Weights?
    /// K and N of the constant matrix.
    public var inputChannels: Int
    public var outputChannels: Int
    /// [N] added to every row, with `weights`.
    public var bias: Weights?

    /// The product of two inputs.
    public init(transposeA: Bool = false, transposeB: Bool = false) {
        self.transposeA = transposeA
        self.transposeB = transposeB
        self.inputChannels = 0
        self.outputChannels = 0
    }

    /// The product of the input with a constant [K, N] matrix, stored [N, K].
    public init(inputChannels: Int, outputChannels: Int, weights: Weights, bias: Weights? = nil) {
        self.transposeA = false
        self.transposeB = false
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.weights = weights
        self.bias = bias
    }

    public var kindName: String { "matmul" }
    public var inputCounts: ClosedRange<Int> { weights == nil ? 2...2 : 1...1 }

    public func checkAttributes() throws(ModelError) {
        guard weights != nil else { return }
        try AttributeBounds.sizes([inputChannels, outputChannels], "channel count")
        guard !transposeA, !transposeB else { throw ModelError("a product with constant weights takes no transposes") }
    }

    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        if weights != nil {
            let a = inputs[0]
            guard a.width == inputChannels else {
                throw ModelError("multiplies \(inputChannels) inputs by \(outputChannels), gets \(a) with \(a.width) on the last axis")
            }
            return [a.replacing(axis: a.rank - 1, with: outputChannels)]
        }
        let (a, b) = (inputs[0], inputs[1])
        guard a.rank >= 2, b.rank >= 2 else { throw ModelError("multiplies matrices of rank 2 or more, gets \(a) and \(b)") }
        let (m, k) = transposeA ? (a.width, a.height) : (a.height, a.width)
        let (k2, n) = transposeB ? (b.width, b.height) : (b.height, b.width)
        guard k == k2 else { throw ModelError("cannot multiply \(a) by \(b): inner sizes \(k) and \(k2) differ") }
        let batch = try ShapeInference.broadcast(Array(a.dimensions.dropLast(2)), Array(b.dimensions.dropLast(2)))
        return [TensorShape(batch + [m, n])]
    }

    public var weightTensors: [NamedWeights] {
        guard let weights else { return [] }
        return [NamedWeights("weights", shape: [outputChannels, inputChannels], weights)]
            + (bias.map { [NamedWeights("bias", shape: [outputChannels], $0)] } ?? [])
    }

    /// Every output value sums K products.
    public func multiplyAccumulates(inputs: [TensorShape], outputs: [TensorShape]) -> Int {
        guard let a = inputs.first, let y = outputs.first else { return 0 }
        let k = weights != nil ? inputChannels : transposeA ? a.height : a.width
        return [y.count, k].checkedProduct ?? .max
    }

    public var attributes: [OpAttribute] {
        if weights != nil {
            return [OpAttribute("inputChannels", .int(inputChannels), text: nil),
                    OpAttribute("outputChannels", .int(outputChannels), text: nil),
                    OpAttribute("hasBias", .bool(bias != nil), text: bias == nil ? "no bias" : nil)]
        }
        return [OpAttribute("transposeA", .bool(transposeA), text: transposeA ? "transpose A" : nil),
                OpAttribute("transposeB", .bool(transposeB), text: transposeB ? "transpose B" : nil)]
    }
}
