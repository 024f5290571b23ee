/// Folds a batch norm with stored statistics into the convolution before it.
///
///     conv(W, b) -> batchNorm(gamma, beta, mean, var, eps)   becomes   conv(W', b')
///
/// with, per output channel c and s = gamma[c] / sqrt(var[c] + eps):
/// `W'[c] = W[c] * s`, `b'[c] = (b[c] - mean[c]) * s + beta[c]`.
/// Preconditions: the batch norm is the convolution's only reader, it does
/// not compute its own statistics, and the convolution is not a
/// deconvolution (whose weights are laid out by input channel).
public func foldBatchNormIntoConvolution(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs { producer, consumer in
        guard case .convolution(let conv) = producer.operation, !conv.isDeconvolution,
              case .batchNorm(let norm) = consumer.operation, !norm.computeMeanVar else { return false }
        return norm.channels == conv.outputChannels
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .convolution(let conv) = producer.operation, case .batchNorm(let norm) = consumer.operation else { return producer.operation }
        let (gamma, beta, mean, variance) = (norm.gamma.values, norm.beta.values, norm.mean.values, norm.variance.values)
        let scale = (0..<norm.channels).map { gamma[$0] / (variance[$0] + norm.epsilon).squareRoot() }
        let shift = (0..<norm.channels).map { beta[$0] - mean[$0] * scale[$0] }
        return .convolution(conv.scaledPerOutputChannel(scale, thenAdding: shift))
    }
    return !pairs.isEmpty
}

/// Folds a per-channel scale (with optional bias) into the convolution
/// before it: `W'[c] = W[c] * s[c]`, `b'[c] = b[c] * s[c] + bias[c]`.
/// Preconditions as for `foldBatchNormIntoConvolution`; the scale is [C] or [1].
public func foldScaleIntoConvolution(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs { producer, consumer in
        guard case .convolution(let conv) = producer.operation, !conv.isDeconvolution,
              case .scale(let scale) = consumer.operation else { return false }
        return scale.shape == [conv.outputChannels] || scale.shape == [1]
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .convolution(let conv) = producer.operation, case .scale(let scale) = consumer.operation else { return producer.operation }
        let factors = scale.scale.values
        let s = (0..<conv.outputChannels).map { factors[factors.count == 1 ? 0 : $0] }
        let bias = scale.bias?.values ?? []
        let shift = (0..<conv.outputChannels).map { bias.isEmpty ? 0 : bias[bias.count == 1 ? 0 : $0] }
        return .convolution(conv.scaledPerOutputChannel(s, thenAdding: shift))
    }
    return !pairs.isEmpty
}

/// Merges a per-channel scale into the batch norm before it (Caffe's
/// BatchNorm + Scale pair when no convolution precedes them):
/// `gamma' = gamma * s`, `beta' = beta * s + bias`.
public func mergeScaleIntoBatchNorm(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs { producer, consumer in
        guard case .batchNorm(let norm) = producer.operation, case .scale(let scale) = consumer.operation else { return false }
        return scale.shape == [norm.channels] || scale.shape == [1]
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .batchNorm(var norm) = producer.operation, case .scale(let scale) = consumer.operation else { return producer.operation }
        let factors = scale.scale.values, bias = scale.bias?.values ?? []
        let gamma = norm.gamma.values, beta = norm.beta.values
        norm.gamma = Weights((0..<norm.channels).map { gamma[$0] * factors[factors.count == 1 ? 0 : $0] })
        norm.beta = Weights((0..<norm.channels).map {
            beta[$0] * factors[factors.count == 1 ? 0 : $0] + (bias.isEmpty ? 0 : bias[bias.count == 1 ? 0 : $0])
        })
        return .batchNorm(norm)
    }
    return !pairs.isEmpty
}

extension Convolution {
    /// The convolution followed by `y[c] * scale[c] + shift[c]`.
    func scaledPerOutputChannel(_ scale: [Float], thenAdding shift: [Float]) -> Convolution {
        var result = self
        let perChannel = weights.count / outputChannels
        result.weights = weights.withUnsafeBufferPointer { old in
            var scaled = [Float](repeating: 0, count: old.count)
            for channel in 0..<outputChannels {
                let factor = scale[channel]
                for index in channel * perChannel..<(channel + 1) * perChannel { scaled[index] = old[index] * factor }
            }
            return Weights(scaled)
        }
        let oldBias = bias?.values ?? [Float](repeating: 0, count: outputChannels)
        result.bias = Weights((0..<outputChannels).map { oldBias[$0] * scale[$0] + shift[$0] })
        return result
    }
}
