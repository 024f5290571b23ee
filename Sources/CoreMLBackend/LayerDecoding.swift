import ModelFormat
import ProtoSchemas
import Protobuf

/// Core ML NeuralNetworkLayer messages as ModelFormat nodes.
extension SpecReader {
    func node(_ layer: UnsafeMutablePointer<MLLayer>?) throws -> Node {
        guard let layer else { throw fail("a layer is empty", at: nil) }
        do {
            return try node(layer)
        } catch var error as CoreMLFormatError where error.offset == 0 {
            // Problems found in plain values know no message: point at the layer.
            error.offset = decoded.offset(of: layer)
            throw error
        }
    }

    private func node(_ layer: UnsafeMutablePointer<MLLayer>) throws -> Node {
        let name = CArrays.string(layer.pointee.name)
        guard !name.isEmpty else { throw fail("a layer has no name", at: layer) }
        let inputs = CArrays.strings(layer.pointee.input, layer.pointee.n_input)
        let outputs = CArrays.strings(layer.pointee.output, layer.pointee.n_output)
        guard !outputs.isEmpty else { throw fail("layer '\(name)' has no outputs", at: layer) }
        let l = layer.pointee
        let operation: Op
        switch l.layer_case {
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONVOLUTION:
            operation = .convolution(try convolution(l.convolution, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_POOLING:
            operation = .pooling(try pooling(l.pooling, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT:
            let p = l.innerproduct.pointee
            operation = .innerProduct(InnerProduct(
                inputChannels: try count(p.inputchannels, "inputChannels", name), outputChannels: try count(p.outputchannels, "outputChannels", name),
                weights: try weights(p.weights, "weights", of: name), bias: try optionalWeights(p.hasbias, p.bias, "bias", of: name)))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ACTIVATION:
            operation = .activation(try activation(l.activation, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CLIP:
            operation = .activation(.clip(min: l.clip.pointee.minval, max: l.clip.pointee.maxval))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BATCHNORM:
            let p = l.batchnorm.pointee
            operation = .batchNorm(BatchNorm(
                channels: try count(p.channels, "channels", name), epsilon: p.epsilon,
                gamma: try weights(p.gamma, "gamma", of: name), beta: try weights(p.beta, "beta", of: name),
                mean: try weights(p.mean, "mean", of: name), variance: try weights(p.variance, "variance", of: name),
                computeMeanVar: p.computemeanvar != 0, instanceNormalization: p.instancenormalization != 0))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SCALE:
            let p = l.scale.pointee
            operation = .scale(Scale(
                shape: try counts(p.shapescale, p.n_shapescale, name), scale: try weights(p.scale, "scale", of: name),
                biasShape: try counts(p.shapebias, p.n_shapebias, name), bias: try optionalWeights(p.hasbias, p.bias, "bias", of: name)))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BIAS:
            let p = l.bias.pointee
            operation = .bias(Bias(shape: try counts(p.shape, p.n_shape, name), bias: try weights(p.bias, "bias", of: name)))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LRN:
            let p = l.lrn.pointee
            operation = .lrn(LRN(alpha: p.alpha, beta: p.beta, localSize: try count(p.localsize, "localSize", name), k: p.k))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX:
            operation = .softmax
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT:
            guard l.concat.pointee.sequenceconcat == 0 else { throw fail("layer '\(name)': sequence concatenation is not supported", at: l.concat) }
            operation = .concat
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD:
            operation = .add(constant: l.add.pointee.alpha)
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD_BROADCASTABLE:
            operation = .add(constant: 0)
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY_BROADCASTABLE:
            operation = .multiply(constant: 1)
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY:
            operation = .multiply(constant: l.multiply.pointee.alpha)
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MAX:
            operation = .maximum
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MIN:
            operation = .minimum
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_AVERAGE:
            operation = .average
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UNARY:
            operation = .unary(try unary(l.unary, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_L2NORMALIZE:
            operation = .l2Normalize(epsilon: l.l2normalize.pointee.epsilon)
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_FLATTEN:
            operation = .flatten(try order(l.flatten.pointee.mode.rawValue, name, at: l.flatten))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE:
            let p = l.reshape.pointee
            let target = CArrays.array(p.targetshape, p.n_targetshape).map { Int($0) }
            guard target.count == 3 || target.count == 4, target.allSatisfy({ $0 > 0 && $0 <= 1 << 31 }) else {
                throw fail("layer '\(name)': reshape target \(target) is not [C, H, W] or [Seq, C, H, W]", at: l.reshape)
            }
            operation = .reshape(targetShape: Array(target.suffix(3)), order: try order(p.mode.rawValue, name, at: l.reshape))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PERMUTE:
            let p = l.permute.pointee
            operation = .permute(axes: try counts(p.axis, p.n_axis, name, allowZero: true))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PADDING:
            operation = .padding(try padding(l.padding, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CROP:
            let p = l.crop.pointee
            if inputs.count == 2 {
                operation = .crop(.like(offset: try counts(p.offset, p.n_offset, name, allowZero: true)))
            } else {
                operation = .crop(.edges(try edges(p.cropamounts, name)))
            }
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SLICE:
            operation = .slice(try slice(l.slice, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SPLIT:
            guard Int(clamping: l.split.pointee.noutputs) == outputs.count else {
                throw fail("layer '\(name)': split into \(l.split.pointee.noutputs) parts, but \(outputs.count) outputs", at: l.split)
            }
            operation = .split
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE:
            operation = .reduce(try reduce(l.reduce, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UPSAMPLE:
            operation = .upsample(try upsample(l.upsample, name))
        case CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOAD_CONSTANT:
            let p = l.loadconstant.pointee
            operation = .constant(shape: try counts(p.shape, p.n_shape, name), data: try weights(p.data, "data", of: name))
        default:
            guard let defined = try definedOperation(l, name: name) else {
                throw fail("layer '\(name)' has a layer type this toolkit does not support (or none)", at: layer)
            }
            operation = defined
        }
        return Node(name: name, operation: operation, inputs: inputs, outputs: outputs)
    }

    func convolution(_ params: UnsafeMutablePointer<MLConvolution>, _ name: String) throws -> Convolution {
        let p = params.pointee
        let padding: WindowPadding
        switch p.convolution_padding_type_case {
        case CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_SAME:
            padding = .same(topLeftHeavy: try topLeftHeavy(p.same, name))
        case CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID:
            padding = .explicit(try edges(p.valid.pointee.paddingamounts, name))
        default:
            padding = .explicit(.zero)
        }
        return Convolution(
            outputChannels: try count(p.outputchannels, "outputChannels", name),
            kernelChannels: try count(p.kernelchannels, "kernelChannels", name),
            groups: p.ngroups == 0 ? 1 : try count(p.ngroups, "nGroups", name),
            kernel: try size2(p.kernelsize, p.n_kernelsize, default: 3, "kernelSize", name),
            stride: try size2(p.stride, p.n_stride, default: 1, "stride", name),
            dilation: try size2(p.dilationfactor, p.n_dilationfactor, default: 1, "dilationFactor", name),
            padding: padding, isDeconvolution: p.isdeconvolution != 0,
            outputShape: try counts(p.outputshape, p.n_outputshape, name),
            weights: try weights(p.weights, "weights", of: name),
            bias: try optionalWeights(p.hasbias, p.bias, "bias", of: name))
    }

    func pooling(_ params: UnsafeMutablePointer<MLPooling>, _ name: String) throws -> Pooling {
        let p = params.pointee
        let kind: Pooling.Kind
        switch p.type {
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__MAX: kind = .max
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__AVERAGE: kind = .average
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__L2: kind = .l2
        default: throw fail("layer '\(name)' has the unknown pooling type \(p.type.rawValue)", at: params)
        }
        let padding: WindowPadding
        switch p.pooling_padding_type_case {
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_SAME:
            padding = .same(topLeftHeavy: try topLeftHeavy(p.same, name))
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_INCLUDE_LAST_PIXEL:
            let amounts = p.includelastpixel.pointee
            padding = .includeLastPixel(try size2(amounts.paddingamounts, amounts.n_paddingamounts, default: 0,
                                                  "paddingAmounts", name, allowZero: true))
        case CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_VALID:
            padding = .explicit(try edges(p.valid.pointee.paddingamounts, name))
        default:
            padding = .explicit(.zero)
        }
        // Global pooling ignores the kernel; coremltools writes it as [0, 0].
        let kernel = try size2(p.kernelsize, p.n_kernelsize, default: 3, "kernelSize", name, allowZero: p.globalpooling != 0)
        return Pooling(kind: kind, kernel: kernel,
                       stride: try size2(p.stride, p.n_stride, default: 1, "stride", name), padding: padding,
                       excludePaddingFromAverage: p.avgpoolexcludepadding != 0, global: p.globalpooling != 0)
    }
}
