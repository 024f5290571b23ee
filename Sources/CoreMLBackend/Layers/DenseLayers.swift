import ModelFormat
import ProtoSchemas

// Inner product, batch norm, scale, bias, LRN, L2 normalization, softmax.

extension InnerProduct: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLInnerProduct> = builder.new(core_ml__specification__inner_product_layer_params__init)
        params.pointee.inputchannels = UInt64(inputChannels)
        params.pointee.outputchannels = UInt64(outputChannels)
        params.pointee.weights = builder.weights(weights)
        builder.bias(bias, &params.pointee.hasbias, &params.pointee.bias)
        builder.set(layer, Self.layerCases[0], \.innerproduct, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.innerproduct.pointee
        return .innerProduct(InnerProduct(
            inputChannels: try reader.count(p.inputchannels, "inputChannels", name),
            outputChannels: try reader.count(p.outputchannels, "outputChannels", name),
            weights: try reader.weights(p.weights, "weights", of: name),
            bias: try reader.optionalWeights(p.hasbias, p.bias, "bias", of: name)))
    }
}

extension BatchNorm: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BATCHNORM] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLBatchnorm> = builder.new(core_ml__specification__batchnorm_layer_params__init)
        params.pointee.channels = UInt64(channels)
        params.pointee.epsilon = epsilon
        params.pointee.computemeanvar = computeMeanVar ? 1 : 0
        params.pointee.instancenormalization = instanceNormalization ? 1 : 0
        params.pointee.gamma = builder.weights(gamma)
        params.pointee.beta = builder.weights(beta)
        params.pointee.mean = builder.weights(mean)
        params.pointee.variance = builder.weights(variance)
        builder.set(layer, Self.layerCases[0], \.batchnorm, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.batchnorm.pointee
        return .batchNorm(BatchNorm(
            channels: try reader.count(p.channels, "channels", name), epsilon: p.epsilon,
            gamma: try reader.weights(p.gamma, "gamma", of: name), beta: try reader.weights(p.beta, "beta", of: name),
            mean: try reader.weights(p.mean, "mean", of: name), variance: try reader.weights(p.variance, "variance", of: name),
            computeMeanVar: p.computemeanvar != 0, instanceNormalization: p.instancenormalization != 0))
    }
}

extension Scale: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SCALE] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLScale> = builder.new(core_ml__specification__scale_layer_params__init)
        (params.pointee.n_shapescale, params.pointee.shapescale) = builder.uint64s(shape)
        params.pointee.scale = builder.weights(scale)
        if let bias {
            params.pointee.hasbias = 1
            (params.pointee.n_shapebias, params.pointee.shapebias) = builder.uint64s(biasShape)
            params.pointee.bias = builder.weights(bias)
        }
        builder.set(layer, Self.layerCases[0], \.scale, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.scale.pointee
        return .scale(Scale(
            shape: try reader.counts(p.shapescale, p.n_shapescale, name), scale: try reader.weights(p.scale, "scale", of: name),
            biasShape: try reader.counts(p.shapebias, p.n_shapebias, name),
            bias: try reader.optionalWeights(p.hasbias, p.bias, "bias", of: name)))
    }
}

extension Bias: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BIAS] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLBias> = builder.new(core_ml__specification__bias_layer_params__init)
        (params.pointee.n_shape, params.pointee.shape) = builder.uint64s(shape)
        params.pointee.bias = builder.weights(bias)
        builder.set(layer, Self.layerCases[0], \.bias, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.bias.pointee
        return .bias(Bias(shape: try reader.counts(p.shape, p.n_shape, name), bias: try reader.weights(p.bias, "bias", of: name)))
    }
}

extension LRN: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LRN] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<MLLRN> = builder.new(core_ml__specification__lrnlayer_params__init)
        params.pointee.alpha = alpha
        params.pointee.beta = beta
        params.pointee.localsize = UInt64(localSize)
        params.pointee.k = k
        builder.set(layer, Self.layerCases[0], \.lrn, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.lrn.pointee
        return .lrn(LRN(alpha: p.alpha, beta: p.beta, localSize: try reader.count(p.localsize, "localSize", name), k: p.k))
    }
}

extension L2Normalize: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_L2NORMALIZE] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        let params: UnsafeMutablePointer<CoreML__Specification__L2NormalizeLayerParams> =
            builder.new(core_ml__specification__l2_normalize_layer_params__init)
        params.pointee.epsilon = epsilon
        builder.set(layer, Self.layerCases[0], \.l2normalize, params)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        .l2Normalize(epsilon: layer.l2normalize.pointee.epsilon)
    }
}

extension ChannelSoftmax: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.softmax, builder.new(core_ml__specification__softmax_layer_params__init))
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op { .softmax }
}
