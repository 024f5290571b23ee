/// Element-wise activation functions.
public enum Activation: Equatable, Sendable {
    case relu
    /// x if x >= 0 else alpha * x.
    case leakyRelu(alpha: Float)
    /// x if x > alpha else 0.
    case thresholdedRelu(alpha: Float)
    /// Leaky ReLU with one alpha per channel (or one shared).
    case prelu(alpha: Weights)
    case tanh
    /// alpha * tanh(beta * x).
    case scaledTanh(alpha: Float, beta: Float)
    case sigmoid
    /// min(max(alpha * x + beta, 0), 1).
    case sigmoidHard(alpha: Float, beta: Float)
    /// x if x >= 0 else alpha * (exp(x) - 1).
    case elu(alpha: Float)
    case softsign
    case softplus
    /// alpha * log(1 + exp(beta * x)), per channel.
    case parametricSoftplus(alpha: Weights, beta: Weights)
    /// alpha * x + beta.
    case linear(alpha: Float, beta: Float)
    /// min(max(x, min), max); Core ML specification 4.
    case clip(min: Float, max: Float)
}

extension Activation: OpDefinition {
    public var kindName: String { "activation" }
    /// Per-channel parameters need the [C, H, W] channel axis.
    public var takesAnyRank: Bool { !isPerChannel }

    /// Whether it holds one parameter per channel (PReLU, parametric softplus).
    public var isPerChannel: Bool {
        switch self {
        case .prelu, .parametricSoftplus: true
        default: false
        }
    }

    public func checkAttributes() throws(ModelError) {
        if case .clip(let low, let high) = self {
            guard !low.isNaN, !high.isNaN, low <= high else { throw ModelError("clip bounds [\(low), \(high)] are not ordered") }
        }
    }

    /// PReLU and parametric softplus take one parameter per channel, or one for all.
    public func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] {
        let channels = inputs[0].channels
        for tensor in weightTensors where tensor.values.count != 1 && tensor.values.count != channels {
            throw ModelError("\(tensor.name) has \(tensor.values.count) values for \(channels) channels (one per channel, or one)")
        }
        return [inputs[0]]
    }

    public var weightTensors: [NamedWeights] {
        switch self {
        case .prelu(let alpha): [NamedWeights("alpha", shape: [alpha.count], alpha)]
        case .parametricSoftplus(let alpha, let beta): [NamedWeights("alpha", shape: [alpha.count], alpha),
                                                        NamedWeights("beta", shape: [beta.count], beta)]
        default: []
        }
    }

    public func checkWeights() throws(ModelError) {
        switch self {
        case .prelu(let alpha):
            guard alpha.count > 0 else { throw ModelError("alpha is empty") }
        case .parametricSoftplus(let alpha, let beta):
            guard alpha.count > 0, beta.count > 0 else { throw ModelError("alpha or beta is empty") }
        default:
            break
        }
    }

    public var attributes: [OpAttribute] {
        func function(_ name: String, _ parameters: [(String, Float)] = []) -> [OpAttribute] {
            let text = ([name] + parameters.map { "\($0.0) \($0.1)" }).joined(separator: " ")
            return [OpAttribute("function", .string(name), text: text)]
                + parameters.map { OpAttribute($0.0, .float($0.1), text: nil) }
        }
        switch self {
        case .relu: return function("relu")
        case .leakyRelu(let alpha): return function("leakyRelu", [("alpha", alpha)])
        case .thresholdedRelu(let alpha): return function("thresholdedRelu", [("alpha", alpha)])
        case .prelu(let alpha): return function("prelu") + [OpAttribute("channels", .int(alpha.count), text: nil)]
        case .tanh: return function("tanh")
        case .scaledTanh(let alpha, let beta): return function("scaledTanh", [("alpha", alpha), ("beta", beta)])
        case .sigmoid: return function("sigmoid")
        case .sigmoidHard(let alpha, let beta): return function("sigmoidHard", [("alpha", alpha), ("beta", beta)])
        case .elu(let alpha): return function("elu", [("alpha", alpha)])
        case .softsign: return function("softsign")
        case .softplus: return function("softplus")
        case .parametricSoftplus(let alpha, _):
            return function("parametricSoftplus") + [OpAttribute("channels", .int(alpha.count), text: nil)]
        case .linear(let alpha, let beta): return function("linear", [("alpha", alpha), ("beta", beta)])
        case .clip(let min, let max): return function("clip", [("min", min), ("max", max)])
        }
    }
}
