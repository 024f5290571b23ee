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
    let pairs = model.soleConsumerPairs(consumers: { $0.operation.isBatchNorm }) { producer, consumer in
        guard case .convolution(let conv) = producer.operation, !conv.isDeconvolution,
              case .batchNorm(let norm) = consumer.operation, !norm.computeMeanVar else { return false }
        return norm.channels == conv.outputChannels && norm.hasChannelCounts
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .batchNorm(let norm) = consumer.operation else { return }
        // Unloaded statistics (a summary's structure-only read) fold as zeros into unloaded weights.
        let (gamma, beta, mean, variance) = (norm.gamma.perChannel(norm.channels), norm.beta.perChannel(norm.channels),
                                             norm.mean.perChannel(norm.channels), norm.variance.perChannel(norm.channels))
        let scale = (0..<norm.channels).map { gamma[$0] / (variance[$0] + norm.epsilon).squareRoot() }
        let shift = (0..<norm.channels).map { beta[$0] - mean[$0] * scale[$0] }
        producer.updateConvolution { $0.scalePerOutputChannel(scale, thenAdd: shift) }
    }
    return !pairs.isEmpty
}

/// Folds a per-channel scale (with optional bias) into the convolution
/// before it: `W'[c] = W[c] * s[c]`, `b'[c] = b[c] * s[c] + bias[c]`.
/// Preconditions as for `foldBatchNormIntoConvolution`; the scale is [C] or [1].
public func foldScaleIntoConvolution(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs(consumers: { $0.operation.isScale }) { producer, consumer in
        guard case .convolution(let conv) = producer.operation, !conv.isDeconvolution,
              case .scale(let scale) = consumer.operation else { return false }
        return scale.shape == [conv.outputChannels] || scale.shape == [1]
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .scale(let scale) = consumer.operation else { return }
        producer.updateConvolution { conv in
            conv.scalePerOutputChannel(scale.scale.perChannel(conv.outputChannels),
                                       thenAdd: scale.bias.perChannel(conv.outputChannels))
        }
    }
    return !pairs.isEmpty
}

/// Merges a per-channel scale into the batch norm before it (Caffe's
/// BatchNorm + Scale pair when no convolution precedes them):
/// `gamma' = gamma * s`, `beta' = beta * s + bias`.
public func mergeScaleIntoBatchNorm(_ model: inout Model) -> Bool {
    let pairs = model.soleConsumerPairs(consumers: { $0.operation.isScale }) { producer, consumer in
        guard case .batchNorm(let norm) = producer.operation, case .scale(let scale) = consumer.operation else { return false }
        return (scale.shape == [norm.channels] || scale.shape == [1]) && norm.hasChannelCounts
    }
    model.mergePairs(pairs) { producer, consumer in
        guard case .batchNorm(var norm) = producer, case .scale(let scale) = consumer.operation else { return }
        let factors = scale.scale.perChannel(norm.channels), bias = scale.bias.perChannel(norm.channels)
        let gamma = norm.gamma.perChannel(norm.channels), beta = norm.beta.perChannel(norm.channels)
        norm.gamma = Weights((0..<norm.channels).map { gamma[$0] * factors[$0] })
        norm.beta = Weights((0..<norm.channels).map { beta[$0] * factors[$0] + bias[$0] })
        producer = .batchNorm(norm)
    }
    return !pairs.isEmpty
}

extension Convolution {
    /// Makes the convolution compute `y[c] * scale[c] + shift[c]` instead of
    /// `y[c]`: its weights are rewritten in place when it owns them, else as
    /// they are computed on their way out (`Weights.update(chunkwise:)`).
    mutating func scalePerOutputChannel(_ scale: [Float], thenAdd shift: [Float]) {
        let (channels, perChannel) = (outputChannels, weights.count / outputChannels)
        weights.update(chunkwise: { start, values in
            // values[i] is weight start + i, of output channel (start + i) / perChannel.
            var index = 0
            while index < values.count {
                let channel = (start + index) / perChannel
                let end = min(values.count, (channel + 1) * perChannel - start)
                let factor = scale[channel]
                while index < end {
                    values[index] *= factor
                    index += 1
                }
            }
        })
        let oldBias = bias.perChannel(channels)
        bias = Weights((0..<channels).map { oldBias[$0] * scale[$0] + shift[$0] })
    }
}

extension Optional where Wrapped == Weights {
    /// One value per channel from a constant of [C] or [1] values (or zeros
    /// when there is none): what the passes broadcast over a layer's channels.
    func perChannel(_ channels: Int) -> [Float] {
        guard let values = self?.values, !values.isEmpty else { return [Float](repeating: 0, count: channels) }
        return values.count == 1 ? [Float](repeating: values[0], count: channels) : values
    }
}

extension BatchNorm {
    /// Whether gamma, beta, mean and variance hold one value per channel
    /// (or were not loaded: a structure-only read).
    var hasChannelCounts: Bool {
        [gamma, beta, mean, variance].allSatisfy { $0.count == channels }
    }
}

extension Weights {
    /// One value per channel from [C] or [1] values.
    func perChannel(_ channels: Int) -> [Float] { Optional(self).perChannel(channels) }
}
