import ModelFormat
import ProtoSchemas

// Inner product, batch norm, scale, bias, LRN, L2 normalization, softmax.

extension InnerProduct: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.innerproduct, core_ml__specification__inner_product_layer_params__init) { p in
            p.inputchannels = UInt64(inputChannels)
            p.outputchannels = UInt64(outputChannels)
            p.weights = builder.weights(weights)
            builder.bias(bias, &p.hasbias, &p.bias)
        }
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
        builder.set(layer, Self.layerCases[0], \.batchnorm, core_ml__specification__batchnorm_layer_params__init) { p in
            p.channels = UInt64(channels)
            p.epsilon = epsilon
            p.computemeanvar = computeMeanVar ? 1 : 0
            p.instancenormalization = instanceNormalization ? 1 : 0
            p.gamma = builder.weights(gamma)
            p.beta = builder.weights(beta)
            p.mean = builder.weights(mean)
            p.variance = builder.weights(variance)
        }
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
        builder.set(layer, Self.layerCases[0], \.scale, core_ml__specification__scale_layer_params__init) { p in
            (p.n_shapescale, p.shapescale) = builder.uint64s(shape)
            p.scale = builder.weights(scale)
            if let bias {
                p.hasbias = 1
                (p.n_shapebias, p.shapebias) = builder.uint64s(biasShape)
                p.bias = builder.weights(bias)
            }
        }
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
        builder.set(layer, Self.layerCases[0], \.bias, core_ml__specification__bias_layer_params__init) { p in
            (p.n_shape, p.shape) = builder.uint64s(shape)
            p.bias = builder.weights(bias)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.bias.pointee
        return .bias(Bias(shape: try reader.counts(p.shape, p.n_shape, name), bias: try reader.weights(p.bias, "bias", of: name)))
    }
}

extension LRN: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LRN] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.lrn, core_ml__specification__lrnlayer_params__init) { p in
            p.alpha = alpha
            p.beta = beta
            p.localsize = UInt64(localSize)
            p.k = k
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.lrn.pointee
        return .lrn(LRN(alpha: p.alpha, beta: p.beta, localSize: try reader.count(p.localsize, "localSize", name), k: p.k))
    }
}

extension L2Normalize: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_L2NORMALIZE] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.l2normalize, core_ml__specification__l2_normalize_layer_params__init) { p in
            p.epsilon = epsilon
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        .l2Normalize(epsilon: layer.l2normalize.pointee.epsilon)
    }
}

extension ChannelSoftmax: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SOFTMAX] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.softmax, core_ml__specification__softmax_layer_params__init)
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op { .softmax }
}
