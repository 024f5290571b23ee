import ModelFormat
import CoreMLSchema

// Inner product, batch norm, scale, bias, LRN, L2 normalization, softmax.

extension InnerProduct: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_INNER_PRODUCT] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.innerproduct, core_ml__specification__inner_product_layer_params__init) { p in
            p.inputchannels = UInt64(inputChannels)
            p.outputchannels = UInt64(outputChannels)
            builder.weightsAndBias(weights, bias, channels: .leading(outputChannels, count: weights.count), &p.weights, &p.hasbias, &p.bias)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.innerproduct.pointee
        let (inputs, outputs) = (try reader.count(p.inputchannels, "inputChannels", name), try reader.count(p.outputchannels, "outputChannels", name))
        let count = [inputs, outputs].checkedProduct
        return .innerProduct(InnerProduct(
            inputChannels: inputs, outputChannels: outputs,
            weights: try reader.weights(p.weights, "weights", of: name,
                                        quantizable: QuantizableField(count: count, channels: .leading(outputs, count: count ?? 0))),
            bias: try reader.optionalWeights(p.hasbias, p.bias, "bias", of: name, quantizable: .whole(outputs))))
    }
}

extension BatchNorm: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BATCHNORM] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.batchnorm, core_ml__specification__batchnorm_layer_params__init) { p in
            p.channels = UInt64(channels)
            p.epsilon = epsilon  // Core ML reads 0 as 1e-5: a real 0 was rewritten (`loweredUnsetZeros`)
            p.computemeanvar = computeMeanVar ? 1 : 0
            p.instancenormalization = instanceNormalization ? 1 : 0
            p.gamma = builder.weights(gamma, "gamma", channels: .whole(channels))
            p.beta = builder.weights(beta, "beta", channels: .whole(channels))
            p.mean = builder.weights(mean, "mean", channels: .whole(channels))
            p.variance = builder.weights(variance, "variance", channels: .whole(channels))
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.batchnorm.pointee
        let channels = try reader.count(p.channels, "channels", name)
        func vector(_ params: UnsafeMutablePointer<MLWeights>?, _ what: String) throws -> Weights {
            try reader.weights(params, what, of: name, quantizable: .whole(channels))
        }
        return .batchNorm(BatchNorm(
            channels: channels, epsilon: UnsetZero.read(p.epsilon, default: 1e-5), gamma: try vector(p.gamma, "gamma"), beta: try vector(p.beta, "beta"),
            mean: try vector(p.mean, "mean"), variance: try vector(p.variance, "variance"),
            computeMeanVar: p.computemeanvar != 0, instanceNormalization: p.instancenormalization != 0))
    }
}

extension Scale: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_SCALE] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.scale, core_ml__specification__scale_layer_params__init) { p in
            p.scale = builder.shaped(shape, scale, "scale", &p.n_shapescale, &p.shapescale)
            if let bias {
                p.hasbias = 1
                p.bias = builder.shaped(biasShape, bias, "bias", &p.n_shapebias, &p.shapebias)
            }
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.scale.pointee
        let scale = try reader.shaped(p.shapescale, p.n_shapescale, p.scale, "scale", of: name)
        let bias: (shape: [Int], values: Weights?) = p.hasbias != 0 ? try reader.shaped(p.shapebias, p.n_shapebias, p.bias, "bias", of: name)
                                                                     : (try reader.counts(p.shapebias, p.n_shapebias, name), nil)
        return .scale(Scale(shape: scale.shape, scale: scale.values, biasShape: bias.shape, bias: bias.values))
    }
}

extension Bias: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_BIAS] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.bias, core_ml__specification__bias_layer_params__init) { p in
            p.bias = builder.shaped(shape, bias, "bias", &p.n_shape, &p.shape)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let (shape, bias) = try reader.shaped(layer.bias.pointee.shape, layer.bias.pointee.n_shape, layer.bias.pointee.bias, "bias", of: name)
        return .bias(Bias(shape: shape, bias: bias))
    }
}

extension LRN: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_LRN] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.lrn, core_ml__specification__lrnlayer_params__init) { p in
            p.alpha = alpha
            p.beta = beta
            p.localsize = UInt64(localSize)
            p.k = k  // Core ML reads 0 as 1 (the model refuses a k that is not positive)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        let p = layer.lrn.pointee
        return .lrn(LRN(alpha: p.alpha, beta: p.beta, localSize: try reader.count(p.localsize, "localSize", name),
                        k: UnsetZero.read(p.k, default: 1)))
    }
}

extension L2Normalize: LayerCoding {
    static var layerCases: [LayerCase] { [CORE_ML__SPECIFICATION__NEURAL_NETWORK_LAYER__LAYER_L2NORMALIZE] }

    func encode(_ node: Node, into layer: UnsafeMutablePointer<MLLayer>, _ builder: SpecBuilder) {
        builder.set(layer, Self.layerCases[0], \.l2normalize, core_ml__specification__l2_normalize_layer_params__init) { p in
            p.epsilon = epsilon  // Core ML reads 0 as 1e-6: a real 0 was rewritten (`loweredUnsetZeros`)
        }
    }

    static func decode(_ layer: MLLayer, name: String, _ reader: SpecReader) throws -> Op {
        .l2Normalize(epsilon: UnsetZero.read(layer.l2normalize.pointee.epsilon, default: 1e-6))
    }
}

