import ModelFormat
import ProtoSchemas
import Protobuf

/// The smaller layer parameter messages: activations, unary functions,
/// padding, slices, reductions and upsampling.
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

    func unary(_ params: UnsafeMutablePointer<MLUnary>, _ layer: String) throws -> Unary {
        let p = params.pointee
        let kinds: [Unary.Kind] = [.sqrt, .rsqrt, .inverse, .power, .exp, .log, .abs, .threshold]
        guard Int(p.type.rawValue) < kinds.count else {
            throw fail("layer '\(layer)' has the unknown unary function \(p.type.rawValue)", at: params)
        }
        // proto3: an unset scale reads as 0; Core ML treats the layer as scale 1 then.
        return Unary(kind: kinds[Int(p.type.rawValue)], alpha: p.alpha, epsilon: p.epsilon, shift: p.shift,
                     scale: p.scale == 0 ? 1 : p.scale)
    }

    func padding(_ params: UnsafeMutablePointer<MLPadding>, _ layer: String) throws -> Padding {
        let p = params.pointee
        let kind: Padding.Kind
        switch p.padding_type_case {
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_CONSTANT: kind = .constant(p.constant.pointee.value)
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REFLECTION: kind = .reflection
        case CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REPLICATION: kind = .replication
        default: throw fail("layer '\(layer)' has no padding type", at: params)
        }
        return Padding(kind: kind, edges: try edges(p.paddingamounts, layer))
    }

    func slice(_ params: UnsafeMutablePointer<MLSlice>, _ layer: String) throws -> Slice {
        let p = params.pointee
        let axes: [Slice.Axis] = [.channel, .height, .width]
        guard Int(p.axis.rawValue) < axes.count else { throw fail("layer '\(layer)' has the unknown slice axis \(p.axis.rawValue)", at: params) }
        let limit = Int64(Self.maximumCount)
        guard (-limit...limit).contains(p.startindex), (-limit...limit).contains(p.endindex) else {
            throw fail("layer '\(layer)' slices from \(p.startindex) to \(p.endindex)", at: params)
        }
        return Slice(axis: axes[Int(p.axis.rawValue)], start: Int(p.startindex), end: Int(p.endindex),
                     stride: p.stride == 0 ? 1 : try count(p.stride, "stride", layer))
    }

    func reduce(_ params: UnsafeMutablePointer<MLReduce>, _ layer: String) throws -> Reduce {
        let p = params.pointee
        let modes: [Reduce.Mode] = [.sum, .average, .product, .logSum, .sumSquare, .l1, .l2, .max, .min, .argmax]
        let axes: [Reduce.Axes] = [.chw, .hw, .c, .h, .w]
        guard Int(p.mode.rawValue) < modes.count, Int(p.axis.rawValue) < axes.count else {
            throw fail("layer '\(layer)' has the unknown reduction \(p.mode.rawValue) over axes \(p.axis.rawValue)", at: params)
        }
        return Reduce(mode: modes[Int(p.mode.rawValue)], axes: axes[Int(p.axis.rawValue)], epsilon: p.epsilon)
    }

    func upsample(_ params: UnsafeMutablePointer<MLUpsample>, _ layer: String) throws -> Upsample {
        let p = params.pointee
        let mode: Upsample.Mode
        switch p.mode {
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__NN: mode = .nearest
        case CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__BILINEAR: mode = .bilinear
        default: throw fail("layer '\(layer)' has the unknown upsampling mode \(p.mode.rawValue)", at: params)
        }
        return Upsample(scale: try size2(p.scalingfactor, p.n_scalingfactor, default: 1, "scalingFactor", layer), mode: mode)
    }
}
