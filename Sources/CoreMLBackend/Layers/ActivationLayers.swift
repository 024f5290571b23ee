import ModelFormat
import CoreMLSchema

// Activations (ActivationParams; clip as ClipLayerParams) and unary functions.

extension Activation: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ACTIVATION, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CLIP]
    }
    /// Clip is a version-4 layer, written lower as older ones (`lowered`).
    var specificationVersion: Int32 { if case .clip = self { 4 } else { 1 } }
    var lowestSpecificationVersion: Int32 { 1 }
    var layerTypeName: String { if case .clip = self { "clip" } else { kindName } }

    /// Below version 4, `clip(min, max)` as
    ///
    ///     x -> max(x, min)   (relu when min is 0, unary threshold otherwise)
    ///       -> linear(-1)    (-y)
    ///       -> max(., -max)  (unary threshold: -min(y, max))
    ///       -> linear(-1)    (min(y, max))
    ///
    /// as coremltools' iOS 11 converters wrote ReLU6. The steps before the
    /// last are named `<name>__lower_max`, `__neg`, `__min`, made unique if
    /// taken. An infinite bound drops its half; both, the identity (a linear layer).
    func lowered(_ node: Node, at version: Int32, names: inout FreshNames) -> [Node] {
        guard case .clip(let low, let high) = self, let input = node.inputs.first, let output = node.outputs.first else {
            return [node]
        }
        var steps: [Op] = []
        if low > -.infinity { steps.append(low == 0 ? .activation(.relu) : .unary(Unary(kind: .threshold, alpha: low))) }
        if high < .infinity {
            steps += [.activation(.linear(alpha: -1, beta: 0)), .unary(Unary(kind: .threshold, alpha: -high)),
                      .activation(.linear(alpha: -1, beta: 0))]
        }
        if steps.isEmpty { steps = [.activation(.linear(alpha: 1, beta: 0))] }
        let suffixes = steps.count == 4 ? ["__lower_max", "__neg", "__min"] : steps.count == 3 ? ["__neg", "__min"] : []
        var nodes: [Node] = []
        var source = input
        for (index, step) in steps.enumerated() {
            let isLast = index == steps.count - 1
            let name = isLast ? node.name : names.make(node.name + suffixes[index])
            nodes.append(Node(name: name, operation: step, inputs: [source], outputs: [isLast ? output : name]))
            source = name
        }
        return nodes
    }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        if case .clip(let low, let high) = self {
            builder.set(layer, Self.layerCases[1], \.clip, core_ml__specification__clip_layer_params__init) { p in
                p.minval = low
                p.maxval = high
            }
        } else {
            builder.set(layer, Self.layerCases[0], \.activation, builder.activationParams(self))
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        if layer.layer_case == layerCases[1] { return .activation(.clip(min: layer.clip.pointee.minval, max: layer.clip.pointee.maxval)) }
        return .activation(try reader.activation(layer.activation, name))
    }
}

extension Unary: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UNARY] }
    /// UnaryFunctionLayerParams' Operation in the order of its numbers
    /// (SQRT = 0 ... THRESHOLD = 7): one table for writing and reading.
    static let kinds: [Kind] = [.sqrt, .rsqrt, .inverse, .power, .exp, .log, .abs, .threshold]

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.unary, core_ml__specification__unary_function_layer_params__init) { p in
            p.type = .init(UInt32(Self.kinds.firstIndex(of: kind)!))
            p.alpha = alpha
            // proto3 zeros: a real epsilon or scale of 0 was rewritten before (`SpecificationVersion.loweredUnsetZeros`).
            p.epsilon = epsilon
            p.shift = shift
            p.scale = scale
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.unary!
        let p = params.pointee
        let kind = try reader.enumCase(kinds, p.type.rawValue, "unary function", of: name, at: params)
        // proto3 (`UnsetZero`): Core ML reads an epsilon of 0 as 1e-6 (where one is added) and a scale of 0 as 1.
        let epsilon = Unary.addsEpsilon(kind) ? UnsetZero.read(p.epsilon, default: 1e-6) : p.epsilon
        return .unary(Unary(kind: kind, alpha: p.alpha, epsilon: epsilon, shift: p.shift, scale: p.scale == 0 ? 1 : p.scale))
    }
}

extension SpecBuilder {
    func activationParams(_ activation: Activation) -> UnsafeMutablePointer<MLActivation> {
        let params: UnsafeMutablePointer<MLActivation> = new(core_ml__specification__activation_params__init)
        /// Sets the nonlinearity: its case and a new message made by `initialize` and filled by `fill`.
        func set<Function>(_ kind: CoreML__Specification__ActivationParams__NonlinearityTypeCase,
                           _ field: WritableKeyPath<MLActivation, UnsafeMutablePointer<Function>?>,
                           _ initialize: (UnsafeMutablePointer<Function>?) -> Void, _ fill: (inout Function) -> Void = { _ in }) {
            let function: UnsafeMutablePointer<Function> = new(initialize)
            fill(&function.pointee)
            params.pointee.nonlinearity_type_case = kind
            params.pointee[keyPath: field] = function
        }
        switch activation {
        case .relu:
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_RE_LU, \.relu, core_ml__specification__activation_re_lu__init)
        case .leakyRelu(let alpha):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LEAKY_RE_LU, \.leakyrelu,
                core_ml__specification__activation_leaky_re_lu__init) { $0.alpha = alpha }
        case .thresholdedRelu(let alpha):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_THRESHOLDED_RE_LU, \.thresholdedrelu,
                core_ml__specification__activation_thresholded_re_lu__init) { $0.alpha = alpha }
        case .prelu(let alpha):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PRE_LU, \.prelu,
                core_ml__specification__activation_pre_lu__init) { $0.alpha = weights(alpha, "alpha") }
        case .tanh:
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_TANH, \.tanh, core_ml__specification__activation_tanh__init)
        case .scaledTanh(let alpha, let beta):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SCALED_TANH, \.scaledtanh,
                core_ml__specification__activation_scaled_tanh__init) { ($0.alpha, $0.beta) = (alpha, beta) }
        case .sigmoid:
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID, \.sigmoid, core_ml__specification__activation_sigmoid__init)
        case .sigmoidHard(let alpha, let beta):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID_HARD, \.sigmoidhard,
                core_ml__specification__activation_sigmoid_hard__init) { ($0.alpha, $0.beta) = (alpha, beta) }
        case .elu(let alpha):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_ELU, \.elu, core_ml__specification__activation_elu__init) { $0.alpha = alpha }
        case .softsign:
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTSIGN, \.softsign, core_ml__specification__activation_softsign__init)
        case .softplus:
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTPLUS, \.softplus, core_ml__specification__activation_softplus__init)
        case .parametricSoftplus(let alpha, let beta):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PARAMETRIC_SOFTPLUS, \.parametricsoftplus,
                core_ml__specification__activation_parametric_softplus__init) { ($0.alpha, $0.beta) = (weights(alpha, "alpha"), weights(beta, "beta")) }
        case .linear(let alpha, let beta):
            set(CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LINEAR, \.linear,
                core_ml__specification__activation_linear__init) { ($0.alpha, $0.beta) = (alpha, beta) }
        case .clip:
            preconditionFailure("clip is its own layer type (ClipLayerParams), written by Activation.encode")
        }
        return params
    }

}

extension SpecReader {
    func activation(_ params: UnsafeMutablePointer<MLActivation>, _ layer: String) throws -> Activation {
        let p = params.pointee
        switch p.nonlinearity_type_case {
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_RE_LU: return .relu
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LEAKY_RE_LU: return .leakyRelu(alpha: p.leakyrelu.pointee.alpha)
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_THRESHOLDED_RE_LU:
            return .thresholdedRelu(alpha: p.thresholdedrelu.pointee.alpha)
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PRE_LU:
            return .prelu(alpha: try weights(p.prelu.pointee.alpha, "alpha", of: layer))
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_TANH: return .tanh
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SCALED_TANH:
            return .scaledTanh(alpha: p.scaledtanh.pointee.alpha, beta: p.scaledtanh.pointee.beta)
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID: return .sigmoid
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID_HARD:
            return .sigmoidHard(alpha: p.sigmoidhard.pointee.alpha, beta: p.sigmoidhard.pointee.beta)
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_ELU: return .elu(alpha: p.elu.pointee.alpha)
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTSIGN: return .softsign
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTPLUS: return .softplus
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PARAMETRIC_SOFTPLUS:
            return .parametricSoftplus(alpha: try weights(p.parametricsoftplus.pointee.alpha, "alpha", of: layer),
                                       beta: try weights(p.parametricsoftplus.pointee.beta, "beta", of: layer))
        case CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LINEAR:
            return .linear(alpha: p.linear.pointee.alpha, beta: p.linear.pointee.beta)
        default:
            throw fail("layer '\(layer)' has an activation type this toolkit does not support (or none)", at: params)
        }
    }

}
