import ModelFormat
import ProtoSchemas

/// ModelFormat nodes as Core ML NeuralNetworkLayer messages.
extension SpecBuilder {
    func layer(_ node: Node) -> UnsafeMutablePointer<MLLayer> {
        let layer: UnsafeMutablePointer<MLLayer> = new(core_ml__specification__neural_network_layer__init)
        layer.pointee.name = string(node.name)
        (layer.pointee.n_input, layer.pointee.input) = strings(node.inputs)
        (layer.pointee.n_output, layer.pointee.output) = strings(node.outputs)
        let l = layer  // short alias for the long switch below
        switch node.operation {
        case .convolution(let conv):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONVOLUTION
            l.pointee.convolution = convolution(conv)
        case .pooling(let pool):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_POOLING
            l.pointee.pooling = pooling(pool)
        case .innerProduct(let product):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT
            l.pointee.innerproduct = innerProduct(product)
        case .activation(.clip(let low, let high)):
            let clip: UnsafeMutablePointer<CoreML__Specification__ClipLayerParams> = new(core_ml__specification__clip_layer_params__init)
            clip.pointee.minval = low
            clip.pointee.maxval = high
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CLIP
            l.pointee.clip = clip
        case .activation(let activation):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ACTIVATION
            l.pointee.activation = self.activation(activation)
        case .batchNorm(let norm):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BATCHNORM
            l.pointee.batchnorm = batchNorm(norm)
        case .scale(let scale):
            let params: UnsafeMutablePointer<MLScale> = new(core_ml__specification__scale_layer_params__init)
            (params.pointee.n_shapescale, params.pointee.shapescale) = uint64s(scale.shape)
            params.pointee.scale = weights(scale.scale)
            if let bias = scale.bias {
                params.pointee.hasbias = 1
                (params.pointee.n_shapebias, params.pointee.shapebias) = uint64s(scale.biasShape)
                params.pointee.bias = weights(bias)
            }
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SCALE
            l.pointee.scale = params
        case .bias(let bias):
            let params: UnsafeMutablePointer<MLBias> = new(core_ml__specification__bias_layer_params__init)
            (params.pointee.n_shape, params.pointee.shape) = uint64s(bias.shape)
            params.pointee.bias = weights(bias.bias)
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BIAS
            l.pointee.bias = params
        case .lrn(let lrn):
            let params: UnsafeMutablePointer<MLLRN> = new(core_ml__specification__lrnlayer_params__init)
            params.pointee.alpha = lrn.alpha
            params.pointee.beta = lrn.beta
            params.pointee.localsize = UInt64(lrn.localSize)
            params.pointee.k = lrn.k
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LRN
            l.pointee.lrn = params
        case .softmax:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX
            l.pointee.softmax = new(core_ml__specification__softmax_layer_params__init)
        case .concat:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CONCAT
            l.pointee.concat = new(core_ml__specification__concat_layer_params__init)
        case .add where arrayMapping == .exact && node.inputs.count > 1:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD_BROADCASTABLE
            l.pointee.addbroadcastable = new(core_ml__specification__add_broadcastable_layer_params__init)
        case .multiply where arrayMapping == .exact && node.inputs.count > 1:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY_BROADCASTABLE
            l.pointee.multiplybroadcastable = new(core_ml__specification__multiply_broadcastable_layer_params__init)
        case .add(let constant):
            let params: UnsafeMutablePointer<CoreML__Specification__AddLayerParams> = new(core_ml__specification__add_layer_params__init)
            params.pointee.alpha = constant
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_ADD
            l.pointee.add = params
        case .multiply(let constant):
            let params: UnsafeMutablePointer<CoreML__Specification__MultiplyLayerParams> = new(core_ml__specification__multiply_layer_params__init)
            params.pointee.alpha = constant
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MULTIPLY
            l.pointee.multiply = params
        case .maximum:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MAX
            l.pointee.max = new(core_ml__specification__max_layer_params__init)
        case .minimum:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_MIN
            l.pointee.min = new(core_ml__specification__min_layer_params__init)
        case .average:
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_AVERAGE
            l.pointee.average = new(core_ml__specification__average_layer_params__init)
        case .unary(let unary):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UNARY
            l.pointee.unary = self.unary(unary)
        case .l2Normalize(let epsilon):
            let params: UnsafeMutablePointer<CoreML__Specification__L2NormalizeLayerParams> = new(core_ml__specification__l2_normalize_layer_params__init)
            params.pointee.epsilon = epsilon
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_L2NORMALIZE
            l.pointee.l2normalize = params
        case .flatten(let order):
            let params: UnsafeMutablePointer<MLFlatten> = new(core_ml__specification__flatten_layer_params__init)
            params.pointee.mode = order == .channelFirst
                ? CORE_ML__SPECIFICATION__FLATTEN_LAYER_PARAMS__FLATTEN_ORDER__CHANNEL_FIRST
                : CORE_ML__SPECIFICATION__FLATTEN_LAYER_PARAMS__FLATTEN_ORDER__CHANNEL_LAST
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_FLATTEN
            l.pointee.flatten = params
        case .reshape(let target, let order):
            let params: UnsafeMutablePointer<MLReshape> = new(core_ml__specification__reshape_layer_params__init)
            (params.pointee.n_targetshape, params.pointee.targetshape) = int64s(target)
            params.pointee.mode = order == .channelFirst
                ? CORE_ML__SPECIFICATION__RESHAPE_LAYER_PARAMS__RESHAPE_ORDER__CHANNEL_FIRST
                : CORE_ML__SPECIFICATION__RESHAPE_LAYER_PARAMS__RESHAPE_ORDER__CHANNEL_LAST
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_RESHAPE
            l.pointee.reshape = params
        case .permute(let axes):
            let params: UnsafeMutablePointer<MLPermute> = new(core_ml__specification__permute_layer_params__init)
            (params.pointee.n_axis, params.pointee.axis) = uint64s(axes)
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PERMUTE
            l.pointee.permute = params
        case .padding(let padding):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_PADDING
            l.pointee.padding = self.padding(padding)
        case .crop(let crop):
            let params: UnsafeMutablePointer<MLCrop> = new(core_ml__specification__crop_layer_params__init)
            switch crop {
            case .edges(let edges): params.pointee.cropamounts = borderAmounts(edges)
            case .like(let offset): (params.pointee.n_offset, params.pointee.offset) = uint64s(offset)
            }
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_CROP
            l.pointee.crop = params
        case .slice(let slice):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SLICE
            l.pointee.slice = self.slice(slice)
        case .split:
            let params: UnsafeMutablePointer<CoreML__Specification__SplitLayerParams> = new(core_ml__specification__split_layer_params__init)
            params.pointee.noutputs = UInt64(node.outputs.count)
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SPLIT
            l.pointee.split = params
        case .reduce(let reduce):
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_REDUCE
            l.pointee.reduce = self.reduce(reduce)
        case .upsample(let upsample):
            let params: UnsafeMutablePointer<MLUpsample> = new(core_ml__specification__upsample_layer_params__init)
            (params.pointee.n_scalingfactor, params.pointee.scalingfactor) = uint64s([upsample.scale.height, upsample.scale.width])
            params.pointee.mode = upsample.mode == .nearest
                ? CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__NN
                : CORE_ML__SPECIFICATION__UPSAMPLE_LAYER_PARAMS__INTERPOLATION_MODE__BILINEAR
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_UPSAMPLE
            l.pointee.upsample = params
        case .constant(let shape, let data):
            let params: UnsafeMutablePointer<MLLoadConstant> = new(core_ml__specification__load_constant_layer_params__init)
            (params.pointee.n_shape, params.pointee.shape) = uint64s(shape)
            params.pointee.data = weights(data)
            l.pointee.layer_case = CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LOAD_CONSTANT
            l.pointee.loadconstant = params
        case .defined(let op):
            encode(op.definition, into: l)
        }
        return layer
    }

    func convolution(_ conv: Convolution) -> UnsafeMutablePointer<MLConvolution> {
        let params: UnsafeMutablePointer<MLConvolution> = new(core_ml__specification__convolution_layer_params__init)
        params.pointee.outputchannels = UInt64(conv.outputChannels)
        params.pointee.kernelchannels = UInt64(conv.kernelChannels)
        params.pointee.ngroups = UInt64(conv.groups)
        (params.pointee.n_kernelsize, params.pointee.kernelsize) = uint64s([conv.kernel.height, conv.kernel.width])
        (params.pointee.n_stride, params.pointee.stride) = uint64s([conv.stride.height, conv.stride.width])
        (params.pointee.n_dilationfactor, params.pointee.dilationfactor) = uint64s([conv.dilation.height, conv.dilation.width])
        switch conv.padding {
        case .explicit(let edges):
            params.pointee.convolution_padding_type_case = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID
            params.pointee.valid = validPadding(edges)
        case .includeLastPixel(let pads):
            // Pooling only; Model.validate() rejects it on a convolution.
            params.pointee.convolution_padding_type_case = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_VALID
            params.pointee.valid = validPadding(Edges(top: pads.height, bottom: pads.height, left: pads.width, right: pads.width))
        case .same(let topLeftHeavy):
            params.pointee.convolution_padding_type_case = CORE_ML__SPECIFICATION__CONVOLUTION_LAYER_PARAMS__CONVOLUTION_PADDING_TYPE_SAME
            params.pointee.same = samePadding(topLeftHeavy: topLeftHeavy)
        }
        params.pointee.isdeconvolution = conv.isDeconvolution ? 1 : 0
        (params.pointee.n_outputshape, params.pointee.outputshape) = uint64s(conv.outputShape)
        params.pointee.weights = weights(conv.weights)
        if let bias = conv.bias {
            params.pointee.hasbias = 1
            params.pointee.bias = weights(bias)
        }
        return params
    }

    func validPadding(_ edges: Edges) -> UnsafeMutablePointer<MLValidPadding> {
        let valid: UnsafeMutablePointer<MLValidPadding> = new(core_ml__specification__valid_padding__init)
        valid.pointee.paddingamounts = borderAmounts(edges)
        return valid
    }

    func samePadding(topLeftHeavy: Bool) -> UnsafeMutablePointer<MLSamePadding> {
        let same: UnsafeMutablePointer<MLSamePadding> = new(core_ml__specification__same_padding__init)
        same.pointee.asymmetrymode = topLeftHeavy
            ? CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__TOP_LEFT_HEAVY
            : CORE_ML__SPECIFICATION__SAME_PADDING__SAME_PADDING_MODE__BOTTOM_RIGHT_HEAVY
        return same
    }

    func pooling(_ pool: Pooling) -> UnsafeMutablePointer<MLPooling> {
        let params: UnsafeMutablePointer<MLPooling> = new(core_ml__specification__pooling_layer_params__init)
        params.pointee.type = switch pool.kind {
        case .max: CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__MAX
        case .average: CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__AVERAGE
        case .l2: CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_TYPE__L2
        }
        (params.pointee.n_kernelsize, params.pointee.kernelsize) = uint64s([pool.kernel.height, pool.kernel.width])
        (params.pointee.n_stride, params.pointee.stride) = uint64s([pool.stride.height, pool.stride.width])
        switch pool.padding {
        case .explicit(let edges):
            params.pointee.pooling_padding_type_case = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_VALID
            params.pointee.valid = validPadding(edges)
        case .same(let topLeftHeavy):
            params.pointee.pooling_padding_type_case = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_SAME
            params.pointee.same = samePadding(topLeftHeavy: topLeftHeavy)
        case .includeLastPixel(let pads):
            let padding: UnsafeMutablePointer<MLIncludeLastPixel> = new(core_ml__specification__pooling_layer_params__valid_complete_padding__init)
            (padding.pointee.n_paddingamounts, padding.pointee.paddingamounts) = uint64s([pads.height, pads.width])
            params.pointee.pooling_padding_type_case = CORE_ML__SPECIFICATION__POOLING_LAYER_PARAMS__POOLING_PADDING_TYPE_INCLUDE_LAST_PIXEL
            params.pointee.includelastpixel = padding
        }
        params.pointee.avgpoolexcludepadding = pool.excludePaddingFromAverage ? 1 : 0
        params.pointee.globalpooling = pool.global ? 1 : 0
        return params
    }

    func innerProduct(_ product: InnerProduct) -> UnsafeMutablePointer<MLInnerProduct> {
        let params: UnsafeMutablePointer<MLInnerProduct> = new(core_ml__specification__inner_product_layer_params__init)
        params.pointee.inputchannels = UInt64(product.inputChannels)
        params.pointee.outputchannels = UInt64(product.outputChannels)
        params.pointee.weights = weights(product.weights)
        if let bias = product.bias {
            params.pointee.hasbias = 1
            params.pointee.bias = weights(bias)
        }
        return params
    }

    func batchNorm(_ norm: BatchNorm) -> UnsafeMutablePointer<MLBatchnorm> {
        let params: UnsafeMutablePointer<MLBatchnorm> = new(core_ml__specification__batchnorm_layer_params__init)
        params.pointee.channels = UInt64(norm.channels)
        params.pointee.epsilon = norm.epsilon
        params.pointee.computemeanvar = norm.computeMeanVar ? 1 : 0
        params.pointee.instancenormalization = norm.instanceNormalization ? 1 : 0
        params.pointee.gamma = weights(norm.gamma)
        params.pointee.beta = weights(norm.beta)
        params.pointee.mean = weights(norm.mean)
        params.pointee.variance = weights(norm.variance)
        return params
    }

    func padding(_ padding: Padding) -> UnsafeMutablePointer<MLPadding> {
        let params: UnsafeMutablePointer<MLPadding> = new(core_ml__specification__padding_layer_params__init)
        switch padding.kind {
        case .constant(let value):
            let constant: UnsafeMutablePointer<CoreML__Specification__PaddingLayerParams__PaddingConstant> =
                new(core_ml__specification__padding_layer_params__padding_constant__init)
            constant.pointee.value = value
            params.pointee.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_CONSTANT
            params.pointee.constant = constant
        case .reflection:
            params.pointee.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REFLECTION
            params.pointee.reflection = new(core_ml__specification__padding_layer_params__padding_reflection__init)
        case .replication:
            params.pointee.padding_type_case = CORE_ML__SPECIFICATION__PADDING_LAYER_PARAMS__PADDING_TYPE_REPLICATION
            params.pointee.replication = new(core_ml__specification__padding_layer_params__padding_replication__init)
        }
        params.pointee.paddingamounts = borderAmounts(padding.edges)
        return params
    }
}
