import Foundation
import Conversion
import ModelFormat

/// What a layer mapping sees.
struct KerasBuilder {
    let layer: KerasLayer
    let inputShapes: [TensorShape]
    let ranks: [Int]
    let weights: [KerasWeight]
    /// Keras 2's hard sigmoid is 0.2 x + 0.5; Keras 3's relu6(x + 3) / 6.
    let hardSigmoidSlope: Float

    var name: String { layer.name }
    var input: String { layer.inputs[0] }
    var shape: TensorShape { inputShapes[0] }
    var rank: Int { ranks[0] }
    var config: [String: Any] { layer.config }

    func fail(_ message: String) -> KerasError { KerasError(message) }

    // The config's values: nil when absent (or null), an error when present
    // with another type: a default used in place of a value the file states
    // (a pool size of 1e30, say) would be a silently different model.

    func int(_ key: String) throws -> Int? {
        guard let value = present(key) else { return nil }
        guard let int = Self.integer(value) else { throw fail("'\(key)' is \(value), not an integer") }
        return int
    }

    func float(_ key: String) throws -> Float? {
        guard let value = present(key) else { return nil }
        guard let number = Self.float(value) else { throw fail("'\(key)' is \(value), not a finite number") }
        return number
    }

    func string(_ key: String) throws -> String? {
        guard let value = present(key) else { return nil }
        guard let string = value as? String else { throw fail("'\(key)' is not a name: \(Self.brief(value))") }
        return string
    }

    func bool(_ key: String) throws -> Bool? {
        guard let value = present(key) else { return nil }
        guard let bool = value as? Bool else { throw fail("'\(key)' is \(value), not true or false") }
        return bool
    }

    /// `[h, w]` (or a single int) as a Size2, each in `minimum...`
    /// ShapeInference.maximumSize (a stride of 0 or 2^62 is refused here,
    /// naming the key, before any arithmetic).
    func pair(_ key: String, default fallback: Int, minimum: Int = 1) throws -> Size2 {
        try optionalPair(key, minimum: minimum) ?? Size2(square: fallback)
    }

    /// `pair`, nil when the key is absent or null.
    func optionalPair(_ key: String, minimum: Int = 1) throws -> Size2? {
        guard let value = present(key) else { return nil }
        let size: Size2
        if let single = Self.integer(value) {
            size = Size2(square: single)
        } else if let list = value as? [Any], list.count == 2, let h = Self.integer(list[0]), let w = Self.integer(list[1]) {
            size = Size2(h, w)
        } else {
            throw fail("'\(key)' is \(Self.brief(value)), not one integer or two")
        }
        let limit = ShapeInference.maximumSize
        if let bad = [size.height, size.width].first(where: { !(minimum...limit).contains($0) }) {
            throw fail("\(Self.nouns[key] ?? key) \(bad) is out of range (\(minimum)...\(limit)) in \(key) \(KerasLayerLedgers.render(value))")
        }
        return size
    }

    /// What a window key measures, for messages.
    static let nouns = ["strides": "stride", "dilation_rate": "dilation", "pool_size": "kernel size", "kernel_size": "kernel size",
                        "size": "scale factor", "output_padding": "output padding"]

    /// The config's `kernel_size`, when given, must be the stored kernel's.
    func expectKernel(_ kh: Int, _ kw: Int, _ shape: [Int]) throws {
        if let size = try optionalPair("kernel_size"), size != Size2(kh, kw) {
            throw fail("the config says kernel_size \([size.height, size.width]), but the stored kernel has shape \(shape)")
        }
    }

    private func present(_ key: String) -> Any? {
        guard let value = config[key], !(value is NSNull) else { return nil }
        return value
    }

    /// A JSON number that is a whole number an Int holds (not true or false).
    static func integer(_ value: Any) -> Int? {
        guard !isBoolean(value) else { return nil }
        if let int = value as? Int { return int }
        return (value as? Double).flatMap { Int(exactly: $0) }
    }

    /// A JSON number that is finite as a Float (1e300 is not: it would
    /// become infinity).
    static func float(_ value: Any) -> Float? {
        guard let number = number(value), number.isFinite, Float(number).isFinite else { return nil }
        return Float(number)
    }

    static func number(_ value: Any) -> Double? {
        guard !isBoolean(value) else { return nil }
        return (value as? Double) ?? (value as? Int).map(Double.init)
    }

    /// JSONSerialization's true and false are NSNumbers that also cast to
    /// Int (and 0 and 1 cast to Bool): their own type tells them apart.
    static func isBoolean(_ value: Any) -> Bool {
        type(of: value) == booleanType || value is Swift.Bool && !(value is NSNumber)
    }

    private static let booleanType = type(of: NSNumber(value: true) as Any)

    /// A value in a message, cut short (a serialized function is long).
    static func brief(_ value: Any) -> String {
        let text = "\(value)".split(whereSeparator: \.isNewline).joined(separator: " ")
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    /// Weight `index` of the layer, checked against the expected count.
    func weight(_ index: Int, _ what: String, count: Int? = nil) throws -> (shape: [Int], values: [Float]) {
        let weight = try tensor(index, what, count: count)
        return (weight.shape, try weight.values())
    }

    /// Kernel `index` of the layer: its shape and values (`KerasWeight.kernel`).
    func kernel(_ index: Int, _ what: String) throws -> (shape: [Int], values: FloatBytes) {
        let weight = try tensor(index, what, count: nil)
        return (weight.shape, try weight.kernel())
    }

    private func tensor(_ index: Int, _ what: String, count: Int?) throws -> KerasWeight {
        guard index < weights.count else { throw fail("has \(weights.count) weight tensors, the \(what) is missing") }
        if let count, weights[index].count != count {
            throw fail("\(what) has shape \(weights[index].shape), expected \(count) values")
        }
        return weights[index]
    }

    func node(_ op: Op, _ inputs: [String], suffix: String? = nil) -> Node {
        let output = suffix.map { "\(name)__\($0)" } ?? name
        return Node(name: output, operation: op, inputs: inputs, outputs: [output])
    }

    /// The config's `key` (filters, units) must agree with the stored weights.
    func expect(_ key: String, _ value: Int, _ shape: [Int]) throws {
        if let declared = try int(key), declared != value {
            throw fail("the config says \(key) \(declared), but the stored weights have shape \(shape)")
        }
    }

    /// The layer's `activation`: a built-in's name ("linear" when absent).
    /// Keras 3 may write a built-in as {"module": "keras.activations",
    /// "class_name": "function", "config": "relu"}; any other dictionary is
    /// a custom function or a serialized lambda (Python code): refused,
    /// never run or decoded. A converter that took it as linear would write
    /// a model that computes something else.
    func activationName() throws -> String {
        guard let value = config["activation"], !(value is NSNull) else { return "linear" }
        if let name = value as? String { return name }
        if let spec = value as? [String: Any], let module = spec["module"] as? String, module.hasPrefix("keras"),
           module.hasSuffix("activations"), spec["class_name"] as? String == "function", let name = spec["config"] as? String {
            return name
        }
        let what = (value as? [String: Any]).flatMap { ($0["config"] as? String) ?? ($0["class_name"] as? String) }.map { " '\($0)'" } ?? ""
        throw fail("the activation\(what) is a custom function or a serialized lambda (Python code, never run or decoded): "
                   + "only Keras's built-in activations are converted")
    }

    /// A normalization's gamma (its first weight when `scale`, else 1s)
    /// and beta (next when `center`, else 0s), and how many weights they took.
    func gammaAndBeta(channels c: Int) throws -> (gamma: Weights, beta: Weights, stored: Int) {
        var index = 0
        func next(_ what: String) throws -> Weights {
            defer { index += 1 }
            return Weights(try weight(index, what, count: c).values)
        }
        let gamma = try bool("scale") ?? true ? try next("gamma") : Weights([Float](repeating: 1, count: c))
        let beta = try bool("center") ?? true ? try next("beta") : Weights([Float](repeating: 0, count: c))
        return (gamma, beta, index)
    }

    /// Whether the config's `axis` (a number, or a list of one; Keras's
    /// default -1 when absent) is the last axis.
    func isLastAxis() -> Bool {
        let value = config["axis"]
        guard let axis = value.map({ ($0 as? Int) ?? ($0 as? [Int]).flatMap { $0.count == 1 ? $0[0] : nil } }) ?? -1 else { return false }
        return axis == -1 || axis == rank - 1
    }

    /// 1 or 2 when the config's `axis` (a number, or a list of one) is H
    /// or W of a map (1, 2, -3, -2), else nil.
    func spatialAxis() -> Int? {
        let value = config["axis"]
        guard rank == 4, let raw = value.flatMap({ Self.integer($0) ?? ($0 as? [Any]).flatMap { $0.count == 1 ? Self.integer($0[0]) : nil } }) else {
            return nil
        }
        let axis = raw < 0 ? raw + 4 : raw
        return axis == 1 || axis == 2 ? axis : nil
    }

    func requireChannelsLast() throws {
        if let format = try string("data_format"), format != "channels_last" { throw fail("data_format \(format) is not supported") }
    }

    func padding() throws -> WindowPadding {
        switch try string("padding") ?? "valid" {
        case "same": return .same(topLeftHeavy: false)
        case "valid": return .explicit(.zero)
        case let other: throw fail("padding '\(other)' is not supported")
        }
    }

    /// A layer's fused `activation`, as nodes after `source`, ending in the layer's name.
    /// - Parameter channels: the channels of `source` (glu halves them).
    func activation(_ function: String, after source: String, channels: Int) throws -> [Node] {
        try KerasLayerTable.activationNodes(function, input: source, output: name, channels: channels, builder: self)
    }
}

/// The Keras op table: layer class -> mapping giving nodes and the output
/// rank (4 for maps, 2 for vectors). No nodes means an identity (Dropout).
enum KerasLayerTable {
    typealias Mapping = @Sendable (KerasBuilder) throws -> (nodes: [Node], rank: Int)

    static let mappings: [String: Mapping] = [
        "Conv2D": convolution, "DepthwiseConv2D": depthwise, "SeparableConv2D": separable, "Conv2DTranspose": transpose,
        "Dense": dense, "BatchNormalization": batchNorm, "Activation": activationLayer,
        "ReLU": relu, "LeakyReLU": leakyRelu, "PReLU": prelu, "ELU": elu, "Softmax": softmaxLayer,
        "MaxPooling2D": { try pooling($0, .max) }, "AveragePooling2D": { try pooling($0, .average) },
        "GlobalAveragePooling2D": { try globalPooling($0, .average) }, "GlobalMaxPooling2D": { try globalPooling($0, .max) },
        "Flatten": flatten, "Reshape": reshape, "Permute": permute,
        "Dropout": { _ in ([], 0) }, "SpatialDropout2D": { _ in ([], 0) }, "GaussianNoise": { _ in ([], 0) },
        "GaussianDropout": { _ in ([], 0) }, "ActivityRegularization": { _ in ([], 0) },
        "ZeroPadding2D": zeroPadding, "Cropping2D": cropping, "UpSampling2D": upsampling,
        "Concatenate": concatenate, "Add": { try merge($0, .add(constant: 0)) }, "Multiply": { try merge($0, .multiply(constant: 1)) },
        "Average": { try merge($0, .average) }, "Maximum": { try merge($0, .maximum) }, "Minimum": { try merge($0, .minimum) },
        "Subtract": subtract, "Rescaling": rescaling, "Normalization": normalization, "Identity": identity,
        "LayerNormalization": layerNormalization, "LayerScale": layerScale, "CustomScaleLayer": customScale, "StochasticDepth": stochasticDepth,
        // Data augmentation: active only in training.
        "RandomFlip": identity, "RandomRotation": identity, "RandomZoom": identity, "RandomTranslation": identity,
        "RandomContrast": identity, "RandomBrightness": identity,
    ]

    /// Keras's own layers that have no mapping yet, so that a message does
    /// not call them custom.
    static let unsupportedBuiltIns = Set<String>([
        "GroupNormalization", "UnitNormalization", "SpectralNormalization", "Conv1D", "Conv3D",
        "Conv1DTranspose", "Conv3DTranspose", "SeparableConv1D", "DepthwiseConv1D", "MaxPooling1D", "MaxPooling3D",
        "AveragePooling1D", "AveragePooling3D", "GlobalAveragePooling1D", "GlobalMaxPooling1D", "GlobalAveragePooling3D",
        "GlobalMaxPooling3D", "ZeroPadding1D", "ZeroPadding3D", "Cropping1D", "Cropping3D", "UpSampling1D", "UpSampling3D",
        "Embedding", "LSTM", "GRU", "SimpleRNN", "RNN", "Bidirectional", "TimeDistributed", "ConvLSTM1D", "ConvLSTM2D",
        "ConvLSTM3D", "MultiHeadAttention", "GroupQueryAttention", "Attention", "AdditiveAttention", "Dot", "RepeatVector",
        "Masking", "Resizing", "CenterCrop", "RandomCrop", "CategoryEncoding", "Discretization", "Hashing",
        "HashedCrossing", "IntegerLookup", "StringLookup", "TextVectorization", "SpatialDropout1D", "SpatialDropout3D",
        "AlphaDropout", "ThresholdedReLU", "Einsum", "EinsumDense", "TFSMLayer", "TorchModuleWrapper",
    ]).subtracting(mappings.keys)

    /// No nodes: the layer's name stands for its input.
    static let identity: Mapping = { _ in ([], 0) }
}
