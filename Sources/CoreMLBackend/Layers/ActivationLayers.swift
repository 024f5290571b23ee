import ModelFormat
import ProtoSchemas

// Activations (ActivationParams; clip as ClipLayerParams) and unary functions.

extension Activation: LayerCoding {
    static var layerCases: [LayerCase] {
        [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ACTIVATION, CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CLIP]
    }
    /// Clip is a version-4 layer (written lower as four older ones, `SpecificationVersion.lowered`).
    var specificationVersion: Int32 { if case .clip = self { 4 } else { 1 } }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        if case .clip(let low, let high) = self {
            let clip: UnsafeMutablePointer<CoreML__Specification__ClipLayerParams> = builder.new(core_ml__specification__clip_layer_params__init)
            clip.pointee.minval = low
            clip.pointee.maxval = high
            builder.set(layer, Self.layerCases[1], \.clip, clip)
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

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLUnary> = builder.new(core_ml__specification__unary_function_layer_params__init)
        params.pointee.type = switch kind {
        case .sqrt: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__SQRT
        case .rsqrt: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__RSQRT
        case .inverse: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__INVERSE
        case .power: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__POWER
        case .exp: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__EXP
        case .log: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__LOG
        case .abs: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__ABS
        case .threshold: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__THRESHOLD
        }
        params.pointee.alpha = alpha
        params.pointee.epsilon = epsilon
        params.pointee.shift = shift
        params.pointee.scale = scale
        builder.set(layer, Self.layerCases[0], \.unary, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let params = layer.unary!
        let p = params.pointee
        let kinds: [Unary.Kind] = [.sqrt, .rsqrt, .inverse, .power, .exp, .log, .abs, .threshold]
        guard Int(p.type.rawValue) < kinds.count else {
            throw reader.fail("layer '\(name)' has the unknown unary function \(p.type.rawValue)", at: params)
        }
        // proto3: an unset scale reads as 0; Core ML treats the layer as scale 1 then.
        return .unary(Unary(kind: kinds[Int(p.type.rawValue)], alpha: p.alpha, epsilon: p.epsilon, shift: p.shift,
                            scale: p.scale == 0 ? 1 : p.scale))
    }
}

extension SpecBuilder {
    func activationParams(_ activation: Activation) -> UnsafeMutablePointer<MLActivation> {
        let params: UnsafeMutablePointer<MLActivation> = new(core_ml__specification__activation_params__init)
        let p = params
        switch activation {
        case .relu:
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_RE_LU
            p.pointee.relu = new(core_ml__specification__activation_re_lu__init)
        case .leakyRelu(let alpha):
            let leaky: UnsafeMutablePointer<CoreML__Specification__ActivationLeakyReLU> = new(core_ml__specification__activation_leaky_re_lu__init)
            leaky.pointee.alpha = alpha
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LEAKY_RE_LU
            p.pointee.leakyrelu = leaky
        case .thresholdedRelu(let alpha):
            let thresholded: UnsafeMutablePointer<CoreML__Specification__ActivationThresholdedReLU> = new(core_ml__specification__activation_thresholded_re_lu__init)
            thresholded.pointee.alpha = alpha
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_THRESHOLDED_RE_LU
            p.pointee.thresholdedrelu = thresholded
        case .prelu(let alpha):
            let prelu: UnsafeMutablePointer<CoreML__Specification__ActivationPReLU> = new(core_ml__specification__activation_pre_lu__init)
            prelu.pointee.alpha = weights(alpha)
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PRE_LU
            p.pointee.prelu = prelu
        case .tanh:
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_TANH
            p.pointee.tanh = new(core_ml__specification__activation_tanh__init)
        case .scaledTanh(let alpha, let beta):
            let scaled: UnsafeMutablePointer<CoreML__Specification__ActivationScaledTanh> = new(core_ml__specification__activation_scaled_tanh__init)
            scaled.pointee.alpha = alpha
            scaled.pointee.beta = beta
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SCALED_TANH
            p.pointee.scaledtanh = scaled
        case .sigmoid:
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID
            p.pointee.sigmoid = new(core_ml__specification__activation_sigmoid__init)
        case .sigmoidHard(let alpha, let beta):
            let hard: UnsafeMutablePointer<CoreML__Specification__ActivationSigmoidHard> = new(core_ml__specification__activation_sigmoid_hard__init)
            hard.pointee.alpha = alpha
            hard.pointee.beta = beta
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SIGMOID_HARD
            p.pointee.sigmoidhard = hard
        case .elu(let alpha):
            let elu: UnsafeMutablePointer<CoreML__Specification__ActivationELU> = new(core_ml__specification__activation_elu__init)
            elu.pointee.alpha = alpha
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_ELU
            p.pointee.elu = elu
        case .softsign:
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTSIGN
            p.pointee.softsign = new(core_ml__specification__activation_softsign__init)
        case .softplus:
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_SOFTPLUS
            p.pointee.softplus = new(core_ml__specification__activation_softplus__init)
        case .parametricSoftplus(let alpha, let beta):
            let softplus: UnsafeMutablePointer<CoreML__Specification__ActivationParametricSoftplus> = new(core_ml__specification__activation_parametric_softplus__init)
            softplus.pointee.alpha = weights(alpha)
            softplus.pointee.beta = weights(beta)
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_PARAMETRIC_SOFTPLUS
            p.pointee.parametricsoftplus = softplus
        case .linear(let alpha, let beta):
            let linear: UnsafeMutablePointer<CoreML__Specification__ActivationLinear> = new(core_ml__specification__activation_linear__init)
            linear.pointee.alpha = alpha
            linear.pointee.beta = beta
            p.pointee.nonlinearity_type_case = CORE_ML__SPECIFICATION__ACTIVATION_PARAMS__NONLINEARITY_TYPE_LINEAR
            p.pointee.linear = linear
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
