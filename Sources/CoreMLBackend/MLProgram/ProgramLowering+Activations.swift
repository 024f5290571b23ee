import ModelFormat

/// Core ML's activation kinds as iOS15 operations of the same formulas
/// (coremltools' activation.py states each: clip's alpha and beta are its
/// bounds; prelu's and softplus_parametric's parameters are per channel).
extension ProgramLowering {
    func activation(_ activation: Activation, _ input: String, node: Node, shape: [Int]) throws -> String {
        let name = node.name
        if case .clip(let low, let high) = activation, !(low < high) {
            // iOS 17's clip requires alpha < beta (coremltools' type inference refuses a Keras ReLU(max_value=0)'s clip(0, 0)):
            // the same min(max(x, alpha), beta) as two operations, at every version.
            let raised = program.operation("maximum", "\(name)_low", ["x": input, "y": program.constant("\(name)_alpha", .floats([low]))], shape: shape)
            return program.operation("minimum", name, ["x": raised, "y": program.constant("\(name)_beta", .floats([high]))], shape: shape)
        }
        func scalar(_ field: String, _ value: Float) -> (String, [String]) {
            (field, [program.constant("\(name)_\(field)", .floats([value]))])
        }
        /// A per-channel parameter as `[C]` (a single value repeated).
        func channels(_ field: String, _ weights: Weights) -> (String, [String]) {
            let count = shape[1]
            let values = weights.count == 1 ? Weights(Array(repeating: weights.values[0], count: count)) : weights
            return (field, [program.constant("\(name)_\(field)", values, shape: [count])])
        }
        let (type, parameters): (String, [(String, [String])]) = switch activation {
        case .relu: ("relu", [])
        case .sigmoid: ("sigmoid", [])
        case .tanh: ("tanh", [])
        case .softsign: ("softsign", [])
        case .softplus: ("softplus", [])
        case .leakyRelu(let alpha): ("leaky_relu", [scalar("alpha", alpha)])
        case .thresholdedRelu(let alpha): ("thresholded_relu", [scalar("alpha", alpha)])
        case .elu(let alpha): ("elu", [scalar("alpha", alpha)])
        case .scaledTanh(let alpha, let beta): ("scaled_tanh", [scalar("alpha", alpha), scalar("beta", beta)])
        case .sigmoidHard(let alpha, let beta): ("sigmoid_hard", [scalar("alpha", alpha), scalar("beta", beta)])
        case .linear(let alpha, let beta): ("linear_activation", [scalar("alpha", alpha), scalar("beta", beta)])
        case .clip(let low, let high): ("clip", [scalar("alpha", low), scalar("beta", high)])
        case .prelu(let alpha): ("prelu", [channels("alpha", alpha)])
        case .parametricSoftplus(let alpha, let beta): ("softplus_parametric", [channels("alpha", alpha), channels("beta", beta)])
        }
        return program.operation(type, name, [("x", [input])] + parameters, shape: shape)
    }
}
