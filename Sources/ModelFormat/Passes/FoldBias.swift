/// Folds a per-channel bias layer into the convolution or inner product
/// before it (TensorFlow's BiasAdd, and the additive half of an unfused
/// batch norm):
///
///     conv(W, b) -> bias(c)   becomes   conv(W, b + c)
///
/// Preconditions: the bias is the layer's only reader; its constants are
/// [C] or [1]; a convolution is not a deconvolution.
public func foldBiasIntoLinearLayer(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs(consumers: { $0.operation.isBias }) { producer, consumer in
        guard case .bias(let bias) = consumer.operation else { return false }
        switch producer.operation {
        case .convolution(let conv): return !conv.isDeconvolution && (bias.shape == [conv.outputChannels] || bias.shape == [1])
        case .innerProduct(let product): return bias.shape == [product.outputChannels] || bias.shape == [1]
        default: return false
        }
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .bias(let bias) = consumer.operation else { return }
        func sum(_ old: Weights?, _ count: Int) -> Weights {
            let (base, added) = (old.perChannel(count), bias.bias.perChannel(count))
            return Weights((0..<count).map { base[$0] + added[$0] })
        }
        switch producer {
        case .convolution:
            producer.updateConvolution { $0.bias = sum($0.bias, $0.outputChannels) }
        case .innerProduct(var product):
            product.bias = sum(product.bias, product.outputChannels)
            producer = .innerProduct(product)
        default:
            break
        }
    }
    return !pairs.isEmpty
}
