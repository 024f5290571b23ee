import ModelFormat

/// Core ML's format is proto3: a float field holding 0 is not written, and
/// reads as "unset". For the fields below Core ML then applies a default
/// (NeuralNetwork.proto says so field by field), so a real 0 must be
/// written another way, and a file's 0 read as that default:
///
/// | field | Core ML at 0 | a real 0 is written as |
/// |---|---|---|
/// | UnaryFunctionLayerParams.scale | 1 | a linear layer (alpha 0, beta shift) before the unary with scale 1 (`loweredZeroScales`) |
/// | UnaryFunctionLayerParams.epsilon (rsqrt, inverse, log) | 1e-6 | 1e-45, `Float.leastNonzeroMagnitude` (coremltools' builder writes it for log) |
/// | BatchnormLayerParams.epsilon | 1e-5 | 1e-45 |
/// | LRNLayerParams.k | 1 | 1e-45 |
/// | L2NormalizeLayerParams.epsilon | 1e-6 | 1e-45 |
/// | ReduceLayerParams.epsilon (LOGSUM) | 1e-6 | 1e-45 |
/// | ConvolutionLayerParams.nGroups | 1 | (groups are at least 1) |
/// | NeuralNetworkImageScaler.channelScale | 1 | refused (`checkImageScalers`): the image would be ignored |
///
/// 1e-45 added to a value changes it only when the value is itself below
/// float32's smallest normal (1.2e-38); the reader reads 1e-45 back as 0,
/// so a model round-trips. Fields whose 0 is a real 0 (shift, biases,
/// activation alphas and betas, clip bounds, padding values, thresholds)
/// are written as they are.
enum UnsetZero {
    /// What a real 0 is written as in an additive field that Core ML
    /// defaults at 0 (an epsilon, LRN's k).
    static let least = Float.leastNonzeroMagnitude

    /// `value` as written into a field Core ML reads as `default` at 0.
    static func written(_ value: Float) -> Float {
        value == 0 ? least : value
    }

    /// A stored value as Core ML applies it: 0 (or -0) is `defaultValue`,
    /// `least` is the real 0 `written` encoded.
    static func read(_ stored: Float, default defaultValue: Float) -> Float {
        if stored == 0 { return defaultValue }
        return stored == least ? 0 : stored
    }
}

extension SpecificationVersion {
    /// Refuses an image scale Core ML cannot hold: 0 (it reads a
    /// channelScale of 0 as 1, so the written model would not ignore the
    /// image as the source does), and a scale or bias that is not finite.
    /// - Throws: `ModelError` naming the input.
    static func checkImageScalers(_ model: Model) throws(ModelError) {
        for input in model.inputs {
            guard let image = input.image else { continue }
            if image.scale == 0 {
                throw ModelError("input '\(input.name)': an image scale of 0 cannot be written: Core ML reads a channelScale of 0 as unset (1)")
            }
            let values = [image.scale, image.redBias, image.greenBias, image.blueBias, image.grayBias]
            if let bad = values.first(where: { !$0.isFinite }) {
                throw ModelError("input '\(input.name)': image scale and biases must be finite, not \(bad)")
            }
        }
    }

    /// `model` with each unary function of scale 0 (`f(0 * x + shift)`,
    /// which Core ML would read as `f(x + shift)`) written as a linear
    /// layer `0 * x + shift` named `<name>__shift` followed by the unary
    /// with scale 1 and shift 0, which keeps the name and output.
    static func loweredZeroScales(_ model: Model) -> Model {
        guard model.nodes.contains(where: { if case .unary(let u) = $0.operation { u.scale == 0 } else { false } }) else { return model }
        var taken = Set(model.nodes.map(\.name))
        for input in model.inputs { taken.insert(input.name) }
        for node in model.nodes { taken.formUnion(node.outputs) }
        var result = model
        result.nodes = model.nodes.flatMap { node -> [Node] in
            guard case .unary(var unary) = node.operation, unary.scale == 0, let input = node.inputs.first else { return [node] }
            var name = node.name + "__shift", suffix = 1
            while taken.contains(name) {
                suffix += 1
                name = "\(node.name)__shift\(suffix)"
            }
            taken.insert(name)
            let shift = Node(name: name, operation: .activation(.linear(alpha: 0, beta: unary.shift)), inputs: [input], outputs: [name])
            (unary.scale, unary.shift) = (1, 0)
            var function = node
            function.operation = .unary(unary)
            function.inputs = [name]
            return [shift, function]
        }
        return result
    }
}
