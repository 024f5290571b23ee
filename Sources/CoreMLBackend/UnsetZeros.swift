import ModelFormat

/// Core ML's format is proto3: a float field holding 0 is not written, and
/// reads as "unset". For the fields below Core ML then applies a default
/// (NeuralNetwork.proto says so field by field), so a real 0 must be
/// written another way (`SpecificationVersion.loweredUnsetZeros`, before
/// encoding: the model as written), and a file's 0 is read as that default:
///
/// | field | Core ML at 0 | a real 0 is written as |
/// |---|---|---|
/// | UnaryFunctionLayerParams.scale | 1 | a linear layer (alpha 0, beta shift) before the unary with scale 1 |
/// | UnaryFunctionLayerParams.epsilon (rsqrt, inverse, log) | 1e-6 | 1e-45, `Float.leastNonzeroMagnitude` (coremltools' builder writes it for log) |
/// | BatchnormLayerParams.epsilon | 1e-5 | 1e-45 |
/// | L2NormalizeLayerParams.epsilon | 1e-6 | 1e-45 |
/// | ReduceLayerParams.epsilon (LOGSUM) | 1e-6 | 1e-45 |
/// | LRNLayerParams.k | 1 | (the model refuses a k that is not positive) |
/// | ConvolutionLayerParams.nGroups | 1 | (groups are at least 1) |
/// | NeuralNetworkImageScaler.channelScale | 1 | refused (`checkImageScalers`): the image would be ignored |
///
/// 1e-45 added to a value leaves it unchanged unless the value is below
/// float32's smallest normal (1.2e-38): only an input of exactly 0 (or a
/// subnormal) gives another result than with no epsilon (rsqrt(0 + 1e-45)
/// is 2.7e22, not infinity; log gives -103.3, not -infinity), and on
/// float16 (GPU, Neural Engine) 1e-45 is 0. The reader keeps 1e-45 as
/// stored, so the runtime computes what Core ML computes. Fields whose 0
/// is a real 0 (shift, biases, activation alphas and betas, clip bounds,
/// padding values, thresholds) are written as they are.
enum UnsetZero {
    /// What a real 0 is written as in an additive field that Core ML
    /// defaults at 0 (an epsilon).
    static let least = Float.leastNonzeroMagnitude

    /// A stored value as Core ML applies it: 0 (or -0) is `defaultValue`.
    static func read(_ stored: Float, default defaultValue: Float) -> Float {
        stored == 0 ? defaultValue : stored
    }
}

extension Unary {
    /// Whether Core ML adds `epsilon` (RSQRT, INVERSE, LOG).
    static func addsEpsilon(_ kind: Kind) -> Bool { kind == .rsqrt || kind == .inverse || kind == .log }
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

    /// `model` with no real 0 where Core ML reads 0 as unset (`UnsetZero`):
    /// an epsilon of 0 that Core ML adds becomes 1e-45, and each unary
    /// function of scale 0 (`f(0 * x + shift)`, which Core ML would read
    /// as `f(x + shift)`) a linear layer `0 * x + shift` named
    /// `<name>__shift` followed by the unary with scale 1 and shift 0,
    /// which keeps the name and output.
    static func loweredUnsetZeros(_ model: Model) -> Model {
        var names = FreshNames(model)
        var result = model
        result.nodes = model.nodes.flatMap { node -> [Node] in
            var node = node
            switch node.operation {
            case .unary(var unary):
                if unary.epsilon == 0, Unary.addsEpsilon(unary.kind) { unary.epsilon = UnsetZero.least }
                node.operation = .unary(unary)
                guard unary.scale == 0, let input = node.inputs.first else { return [node] }
                let name = names.make(node.name + "__shift")
                let shift = Node(name: name, operation: .activation(.linear(alpha: 0, beta: unary.shift)), inputs: [input], outputs: [name])
                (unary.scale, unary.shift) = (1, 0)
                node.operation = .unary(unary)
                node.inputs = [name]
                return [shift, node]
            case .batchNorm(var norm) where norm.epsilon == 0:
                norm.epsilon = UnsetZero.least
                node.operation = .batchNorm(norm)
            case .l2Normalize(let epsilon) where epsilon == 0:
                node.operation = .l2Normalize(epsilon: UnsetZero.least)
            case .defined(let op) where (op.definition as? Reduce)?.mode == .logSum || (op.definition as? MapReduce)?.reduce.mode == .logSum:
                // LOGSUM is the classic reduce layer's only (`MapReduce`), as written or still to be chosen.
                if var map = op.definition as? MapReduce, map.reduce.epsilon == 0 {
                    map.reduce.epsilon = UnsetZero.least
                    node.operation = .defined(map)
                } else if var reduce = op.definition as? Reduce, reduce.epsilon == 0 {
                    reduce.epsilon = UnsetZero.least
                    node.operation = .reduce(reduce)
                }
            default:
                break
            }
            return [node]
        }
        return result
    }
}
