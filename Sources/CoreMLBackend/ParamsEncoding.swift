import ModelFormat
import ProtoSchemas

/// The smaller layer parameter messages: activations, unary functions,
/// slices and reductions.
extension SpecBuilder {
    func activation(_ activation: Activation) -> UnsafeMutablePointer<MLActivation> {
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
            preconditionFailure("clip is its own layer type (ClipLayerParams), written by layer(_:)")
        }
        return params
    }

    func unary(_ unary: Unary) -> UnsafeMutablePointer<MLUnary> {
        let params: UnsafeMutablePointer<MLUnary> = new(core_ml__specification__unary_function_layer_params__init)
        params.pointee.type = switch unary.kind {
        case .sqrt: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__SQRT
        case .rsqrt: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__RSQRT
        case .inverse: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__INVERSE
        case .power: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__POWER
        case .exp: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__EXP
        case .log: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__LOG
        case .abs: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__ABS
        case .threshold: CORE_ML__SPECIFICATION__UNARY_FUNCTION_LAYER_PARAMS__OPERATION__THRESHOLD
        }
        params.pointee.alpha = unary.alpha
        params.pointee.epsilon = unary.epsilon
        params.pointee.shift = unary.shift
        params.pointee.scale = unary.scale
        return params
    }

    func slice(_ slice: Slice) -> UnsafeMutablePointer<MLSlice> {
        let params: UnsafeMutablePointer<MLSlice> = new(core_ml__specification__slice_layer_params__init)
        params.pointee.startindex = Int64(slice.start)
        params.pointee.endindex = Int64(slice.end)
        params.pointee.stride = UInt64(slice.stride)
        params.pointee.axis = switch slice.axis {
        case .channel: CORE_ML__SPECIFICATION__SLICE_LAYER_PARAMS__SLICE_AXIS__CHANNEL_AXIS
        case .height: CORE_ML__SPECIFICATION__SLICE_LAYER_PARAMS__SLICE_AXIS__HEIGHT_AXIS
        case .width: CORE_ML__SPECIFICATION__SLICE_LAYER_PARAMS__SLICE_AXIS__WIDTH_AXIS
        }
        return params
    }

    func reduce(_ reduce: Reduce) -> UnsafeMutablePointer<MLReduce> {
        let params: UnsafeMutablePointer<MLReduce> = new(core_ml__specification__reduce_layer_params__init)
        params.pointee.mode = switch reduce.mode {
        case .sum: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__SUM
        case .average: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__AVG
        case .product: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__PROD
        case .logSum: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__LOGSUM
        case .sumSquare: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__SUMSQUARE
        case .l1: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__L1
        case .l2: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__L2
        case .max: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__MAX
        case .min: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__MIN
        case .argmax: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_OPERATION__ARGMAX
        }
        params.pointee.axis = switch reduce.axes {
        case .chw: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_AXIS__CHW
        case .hw: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_AXIS__HW
        case .c: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_AXIS__C
        case .h: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_AXIS__H
        case .w: CORE_ML__SPECIFICATION__REDUCE_LAYER_PARAMS__REDUCE_AXIS__W
        }
        params.pointee.epsilon = reduce.epsilon
        return params
    }
}
