import ModelFormat
import CoreMLSchema
import Protobuf

/// Layer normalization, in two forms by its axes.
///
/// Over the last axes (`axis` -1): the specification-4
/// `layerNormalization` layer (normalizedShape, eps, gamma, beta), which
/// Core ML's validator takes only with gamma and beta, float32 values of
/// the normalized shape's product: an absent gamma is written as ones and
/// an absent beta as zeros, and read back absent (the same computation).
/// The layer works on the last axes, so a leading batch axis changes
/// nothing (`keepsShape`).
///
/// Over the channels of a [C, H, W] map (`axis` -3), which that layer
/// cannot take (it normalizes the last axes, W here): eight layers that
/// exist since specification 1, averages over channels ([1, H, W], which
/// add and multiply broadcast):
///
///     x -> reduce(average, C) -> __mean -> multiply(-1) -> __negated_mean
///     [x, __negated_mean] -> add -> __centered
///     [__centered, __centered] -> multiply -> __squared -> reduce(average, C) -> __variance
///     __variance -> unary rsqrt(epsilon) -> __rsqrt
///     [__centered, __rsqrt] -> multiply -> __normalized -> scale([C] gamma, [C] beta) -> y
///
/// read back as one node when eight layers are wired so (an epsilon of 0
/// is written as the least float, which Core ML does not read as unset).
extension LayerNorm: CompositeLayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LAYER_NORMALIZATION, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE]
    }
    var specificationVersion: Int32 { axis == -1 ? 4 : 1 }
    var keepsShape: Bool { true }
    static let channelSuffixes = ["mean", "negated_mean", "centered", "squared", "variance", "rsqrt", "normalized"]

    func layers(of node: Node, _ builder: SpecBuilder) -> [UnsafeMutablePointer<MLLayer>] {
        guard axis == -1 else {
            let names = Self.channelSuffixes.map { builder.names.make(node.name + "__" + $0) }
            return channelNodes(node, names).map { builder.layer(MapReduce.node($0, mapModel: true)) }  // the classic reduce layers
        }
        let layer = builder.layer(name: node.name, inputs: node.inputs, outputs: node.outputs)
        let count = normalizedShape.checkedProduct ?? 0  // bounded by the input's size: shapes are inferred before writing
        builder.set(layer, Self.layerCases[0], \.layernormalization, core_ml__specification__layer_normalization_layer_params__init) { p in
            (p.n_normalizedshape, p.normalizedshape) = builder.int64s(normalizedShape)
            p.eps = epsilon
            p.gamma = builder.weights(gamma ?? Weights([Float](repeating: 1, count: count)), "gamma", float32Only: true)
            p.beta = builder.weights(beta ?? Weights([Float](repeating: 0, count: count)), "beta", float32Only: true)
        }
        return [layer]
    }

    /// The eight nodes of the channel form, the first seven named `names`.
    func channelNodes(_ node: Node, _ names: [String]) -> [Node] {
        let c = normalizedShape[0], x = node.inputs
        let gamma = gamma ?? Weights([Float](repeating: 1, count: c)), beta = beta ?? Weights([Float](repeating: 0, count: c))
        let operations: [(Op, [String])] = [
            (.reduce(Reduce(mode: .average, axes: [-3])), x),
            (.multiply(constant: -1), [names[0]]),
            (.add(constant: 0), x + [names[1]]),
            (.multiply(constant: 1), [names[2], names[2]]),
            (.reduce(Reduce(mode: .average, axes: [-3])), [names[3]]),
            (.unary(Unary(kind: .rsqrt, epsilon: epsilon == 0 ? UnsetZero.least : epsilon)), [names[4]]),
            (.multiply(constant: 1), [names[2], names[5]]),
            (.scale(Scale(shape: [c], scale: gamma, biasShape: [c], bias: beta)), [names[6]]),
        ]
        return operations.enumerated().map { index, step in
            index < names.count ? Node(name: names[index], operation: step.0, inputs: step.1, outputs: [names[index]])
                : Node(name: node.name, operation: step.0, inputs: step.1, outputs: node.outputs)
        }
    }

    static func node(of layers: ArraySlice<UnsafeMutablePointer<MLLayer>>, _ reader: SpecReader) throws -> (node: Node, count: Int)? {
        let first = layers[layers.startIndex]
        guard first.pointee.layer_case == layerCases[0] else { return channelNode(of: layers, reader) }
        let name = CArrays.string(first.pointee.name)
        let p = first.pointee.layernormalization.pointee
        let shape = try reader.integers(p.normalizedshape, p.n_normalizedshape, "normalized shape", name)
        guard !shape.isEmpty, shape.allSatisfy({ $0 > 0 }) else {
            throw reader.fail("layer '\(name)': normalized shape \(shape) is not one or more positive sizes", at: nil)
        }
        let gamma = try reader.weights(p.gamma, "gamma", of: name)
        let beta = try reader.weights(p.beta, "beta", of: name)
        let norm = LayerNorm(normalizedShape: shape, epsilon: p.eps, gamma: isAll(gamma, 1) ? nil : gamma, beta: isAll(beta, 0) ? nil : beta)
        let outputs = CArrays.strings(first.pointee.output, first.pointee.n_output)
        guard !name.isEmpty, !outputs.isEmpty else { throw reader.fail("layer '\(name)' has no name or no outputs", at: nil) }
        return (Node(name: name, operation: .defined(norm), inputs: CArrays.strings(first.pointee.input, first.pointee.n_input), outputs: outputs), 1)
    }

    /// The channel form's node, when `layers` begin with its eight layers
    /// wired as `channelNodes` wires them.
    static func channelNode(of layers: ArraySlice<UnsafeMutablePointer<MLLayer>>, _ reader: SpecReader) -> (node: Node, count: Int)? {
        guard layers.count >= 8 else { return nil }
        let nodes = layers.prefix(8).compactMap { try? reader.node($0) }
        guard nodes.count == 8, case .unary(let rsqrt) = nodes[5].operation, case .scale(let scale) = nodes[7].operation,
              scale.shape.count == 1, let bias = scale.bias else { return nil }
        let norm = LayerNorm.overChannels(scale.shape[0], epsilon: rsqrt.epsilon, gamma: isAll(scale.scale, 1) ? nil : scale.scale,
                                          beta: isAll(bias, 0) ? nil : bias)
        let node = Node(name: nodes[7].name, operation: .defined(norm), inputs: nodes[0].inputs, outputs: nodes[7].outputs)
        let names = nodes.prefix(7).map(\.name)
        // The intermediate tensors are read by these layers only.
        let later = layers.dropFirst(8).flatMap { CArrays.strings($0.pointee.input, $0.pointee.n_input) }
        guard nodes[0].inputs.count == 1, norm.channelNodes(node, names) == nodes, Set(later).isDisjoint(with: names) else { return nil }
        return (node, 8)
    }

    /// Whether loaded weights all equal `value`.
    static func isAll(_ weights: Weights, _ value: Float) -> Bool {
        weights.isLoaded && weights.withUnsafeBufferPointer { $0.allSatisfy { $0 == value } }
    }
}
