import Conversion
import Foundation
import ModelFormat

/// Keras's preprocessing layers that run inside a model (keras.applications'
/// EfficientNet and MobileNetV3 start with them): each is a scale and a
/// shift, a number or one per channel, written as one Core ML layer.
extension KerasLayerTable {
    /// `x * scale + offset`.
    static func rescaling(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let scale = try perChannel(b, b.config["scale"], "scale") ?? [1]
        let offset = try perChannel(b, b.config["offset"], "offset") ?? [0]
        return ([b.node(try affine(b, scale: scale, shift: offset), [b.input])], b.rank)
    }

    /// `(x - mean) / max(sqrt(variance), 1e-7)` over the last axis (or its
    /// inverse with `invert`), mean and variance from the config or, when
    /// the layer was adapted, from its weights (mean, variance, count).
    static func normalization(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        guard b.isLastAxis() else { throw b.fail("only normalization over the last axis (axis -1) is supported") }
        let mean: [Float], variance: [Float]
        if let given = try perChannel(b, b.config["mean"], "mean") {
            mean = given
            guard let spread = try perChannel(b, b.config["variance"], "variance") else { throw b.fail("has a mean but no variance") }
            variance = spread
        } else {
            mean = try b.weight(0, "mean").values
            variance = try b.weight(1, "variance").values
        }
        guard variance.allSatisfy({ $0 >= 0 }) else { throw b.fail("a variance is negative") }
        // Keras's backend epsilon.
        let deviation = variance.map { max($0.squareRoot(), 1e-7) }
        let c = b.shape.channels
        guard [1, c].contains(mean.count), [1, c].contains(deviation.count) else {
            throw b.fail("\(mean.count) means and \(deviation.count) variances for \(c) channels")
        }
        let scale = try b.bool("invert") ?? false
        if scale { return ([b.node(try affine(b, scale: deviation, shift: mean), [b.input])], b.rank) }
        let inverse = deviation.map { 1 / $0 }
        let count = max(mean.count, inverse.count)
        let shift = (0..<count).map { -mean[mean.count == 1 ? 0 : $0] * inverse[inverse.count == 1 ? 0 : $0] }
        return ([b.node(try affine(b, scale: inverse, shift: shift), [b.input])], b.rank)
    }

    /// A number, or a list of one per channel (nested lists flattened:
    /// Keras may store a broadcast shape), as finite floats; nil when absent.
    static func perChannel(_ b: KerasBuilder, _ value: Any?, _ key: String) throws -> [Float]? {
        guard let value, !(value is NSNull) else { return nil }
        func flat(_ value: Any) -> [Any] { (value as? [Any]).map { $0.flatMap(flat) } ?? [value] }
        let numbers = flat(value).compactMap(KerasBuilder.float)
        guard !numbers.isEmpty, numbers.count == flat(value).count else {
            throw b.fail("'\(key)' is \(KerasBuilder.brief(value)), not finite numbers")
        }
        return numbers
    }

    /// `x * scale + shift` with each a number or one per channel.
    static func affine(_ b: KerasBuilder, scale: [Float], shift: [Float]) throws -> Op {
        if scale.count == 1 && shift.count == 1 { return .activation(.linear(alpha: scale[0], beta: shift[0])) }
        let c = b.shape.channels
        guard [1, c].contains(scale.count), [1, c].contains(shift.count) else {
            throw b.fail("\(scale.count) scales and \(shift.count) offsets for \(c) channels")
        }
        let scales = scale.count == 1 ? [Float](repeating: scale[0], count: c) : scale
        let shifts = shift.count == 1 ? [Float](repeating: shift[0], count: c) : shift
        return .scale(Scale(shape: [c], scale: Weights(scales), biasShape: [c], bias: Weights(shifts)))
    }
}

/// Normalizations over the channels of each pixel (ConvNeXt).
extension KerasLayerTable {
    /// `(x - mean) / sqrt(var + epsilon) * gamma + beta` over the last
    /// axis, the channels of the model's [C, H, W] map: one `LayerNorm`
    /// (without gamma when `scale` is false, without beta when `center` is).
    static func layerNormalization(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        guard b.isLastAxis() else { throw b.fail("only normalization over the last axis is supported") }
        guard !(try b.bool("rms_scaling") ?? false) else { throw b.fail("rms_scaling is not supported") }
        let epsilon = try b.float("epsilon") ?? 0.001
        guard epsilon >= 0 else { throw b.fail("epsilon \(epsilon) is negative") }
        let c = b.shape.channels
        let (gamma, beta, _) = try b.gammaAndBeta(channels: c)
        let (hasGamma, hasBeta) = (try b.bool("scale") ?? true, try b.bool("center") ?? true)
        let norm = LayerNorm.overChannels(c, epsilon: epsilon, gamma: hasGamma ? gamma : nil, beta: hasBeta ? beta : nil)
        return ([b.node(.defined(norm), [b.input])], b.rank)
    }

    /// ConvNeXt's LayerScale (keras.applications defines it, not Keras's
    /// layer set): `x * gamma`, one gamma per channel. Taken by its class
    /// name only with ConvNeXt's config keys and weight shape.
    static func layerScale(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        let c = b.shape.channels
        guard Set(b.config.keys).isSuperset(of: ["init_values", "projection_dim"]), try b.int("projection_dim") == c,
              b.weights.count == 1 else {
            throw b.fail("a LayerScale that is not ConvNeXt's (config init_values and projection_dim \(c), one weight) is a custom layer")
        }
        let gamma = Weights(try b.weight(0, "gamma", count: c).values)
        return ([b.node(.scale(Scale(shape: [c], scale: gamma)), [b.input])], b.rank)
    }

    /// keras.applications' InceptionResNetV2 residual, `inputs[0] +
    /// inputs[1] * scale` (its own layer class), taken with that config only.
    static func customScale(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        guard b.layer.inputs.count == 2, b.weights.isEmpty, let scale = try b.float("scale"),
              Set(b.config.keys).subtracting(["name", "trainable", "dtype", "scale"]).isEmpty else {
            throw b.fail("a CustomScaleLayer that is not InceptionResNetV2's (two inputs, a scale, no weights) is a custom layer")
        }
        let scaled = b.node(.multiply(constant: scale), [b.layer.inputs[1]], suffix: "scaled")
        return ([scaled, b.node(.add(constant: 0), [b.layer.inputs[0], scaled.outputs[0]])], b.ranks.max() ?? 4)
    }

    /// ConvNeXt's StochasticDepth (keras.applications defines it): it drops
    /// residual branches in training only; an identity at inference, taken
    /// with its config (drop_path_rate) only.
    static func stochasticDepth(_ b: KerasBuilder) throws -> (nodes: [Node], rank: Int) {
        guard b.weights.isEmpty, Set(b.config.keys).subtracting(["name", "trainable", "dtype", "drop_path_rate"]).isEmpty,
              b.config["drop_path_rate"] != nil else {
            throw b.fail("a StochasticDepth that is not ConvNeXt's (drop_path_rate, no weights) is a custom layer")
        }
        return ([], b.rank)
    }
}
