import FrontendSupport
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

    func int(_ key: String) -> Int? { config[key] as? Int }
    func float(_ key: String) -> Float? { (config[key] as? Double).map(Float.init) ?? (config[key] as? Int).map(Float.init) }
    func string(_ key: String) -> String? { config[key] as? String }
    func bool(_ key: String) -> Bool? { config[key] as? Bool }

    /// `[h, w]` (or a single int) as a Size2.
    func pair(_ key: String, default value: Int) -> Size2 {
        if let list = config[key] as? [Int], list.count == 2 { return Size2(list[0], list[1]) }
        if let single = config[key] as? Int { return Size2(square: single) }
        return Size2(square: value)
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
        if let declared = int(key), declared != value {
            throw fail("the config says \(key) \(declared), but the stored weights have shape \(shape)")
        }
    }

    func requireChannelsLast() throws {
        if let format = string("data_format"), format != "channels_last" { throw fail("data_format \(format) is not supported") }
    }

    func padding() throws -> WindowPadding {
        switch string("padding") ?? "valid" {
        case "same": return .same(topLeftHeavy: false)
        case "valid": return .explicit(.zero)
        case let other: throw fail("padding '\(other)' is not supported")
        }
    }

    /// A layer's fused `activation`, as nodes after `source`, ending in the layer's name.
    func activation(_ function: String, after source: String) throws -> [Node] {
        try KerasLayerTable.activationNodes(function, input: source, output: name, builder: self)
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
        "Subtract": subtract,
    ]
}
