import Conversion
import ModelFormat

/// Converts a Darknet network (`.cfg` + `.weights`, the format YOLO is
/// published in) to the model spec: convolutional (with batch
/// normalization and its activation), maxpool, route and reorg layers; the
/// network ends at a `[region]` layer (a detector, or see `RegionOutput`) or
/// its last layer, whose output is the model's. The input is `image`, [channels, height, width] from `[net]`;
/// Darknet feeds it RGB pixels scaled to 0-1, which the model takes as an
/// image input with scale 1/255 unless the options name other inputs.
public enum DarknetConverter {
    /// - Parameters:
    ///   - weightsPath: nil for the structure alone (`inspect`): every
    ///     weight tensor unloaded, its count the definition's.
    ///   - imageInput: false keeps `image` a [C, H, W] array input (the
    ///     values Darknet computes on, 0-1) when the options name no image input.
    ///   - region: what a final `[region]` becomes (`RegionOutput`).
    ///   The detector's thresholds are `options.detectionThresholds` (Darknet's
    ///   own defaults otherwise: confidence 0.25, IoU 0.45; suppression per class).
    /// - Throws: `DarknetError` with `file:line` for what the definition
    ///   cannot express or the weights do not fit; `ModelError` from the
    ///   finished model.
    public static func convert(config configPath: String, weights weightsPath: String?,
                               options: ConversionOptions = ConversionOptions(), imageInput: Bool = true,
                               region: RegionOutput = .detector) throws -> Model {
        let config = try DarknetConfig(path: configPath)
        var weights = try weightsPath.map(DarknetWeights.init(path:))
        var walk = DarknetWalk(region: region)
        var model = try walk.build(config, &weights)
        if let weightsPath, let remaining = weights?.remaining, remaining != 0 {
            throw DarknetError("\(weightsPath): \(remaining) bytes are left after the weights of every layer of \(configPath): "
                               + "the two files do not belong together")
        }
        var options = options
        if let classes = walk.regionClasses, region == .detector {
            // The labels name the detector's classes, not a classifier's.
            let source = walk.regionType == "yolo" ? "the [yolo] decoding of \(configPath)" : "the [region] layer of \(configPath)"
            model.detector = try options.takeDetector(classes: classes, source: source, defaults: darknetThresholds)
        } else if options.detectionThresholds.iou != nil || options.detectionThresholds.confidence != nil {
            throw DarknetError("\(configPath): thresholds apply to a detector, and this network \(walk.endsInRegion ? "is converted to its \(region == .rows ? "decoded rows" : "raw grid"), not a detector" : "has no [region] or [yolo] layer")")
        }
        if options.imageInputNames.isEmpty, imageInput {
            options.imageInputNames = [DarknetWalk.inputName]
            if options.imageScale == nil { options.imageScale = 1.0 / 255 }
        }
        try options.finish(&model, convertedFrom: "Darknet network", source: configPath)
        return model
    }
}

/// What a final `[region]` layer becomes.
public enum RegionOutput: Sendable {
    /// Nothing: the model's output is the raw grid, [A * (5 + C), H, W].
    case grid
    /// Layers decoding the grid into rows (`DarknetRegion`): outputs
    /// `raw_confidence` [1, N, C] and `raw_coordinates` [1, N, 4].
    case rows
    /// The rows and Core ML's non-maximum suppression: a detector pipeline
    /// Vision reads (`Detector`).
    case detector
}

/// One pass over the layers, in order; layer i's output tensor is `outputs[i]`.
struct DarknetWalk {
    static let inputName = "image"
    var region = RegionOutput.grid
    /// The final [region]'s class count, once decoded.
    var regionClasses: Int?
    /// Whether the network ends in a [region] or [yolo] layer (decoded or not).
    var endsInRegion = false
    /// "region" or "yolo", for messages.
    var regionType = "region"
    var nodes: [Node] = []
    var shapes: [String: TensorShape] = [:]
    var outputs: [String] = []

    mutating func build(_ config: DarknetConfig, _ weights: inout DarknetWeights?) throws -> Model {
        for section in config.sections {
            if let clause = DarknetLedgers.refusal(section) { throw section.error(clause) }
        }
        let net = config.sections[0]
        let dims = [try net.int("channels", 3), try net.int("height"), try net.int("width")]
        guard dims.allSatisfy({ $0 > 0 }) else { throw net.error("has an empty input (\(dims[0])x\(dims[1])x\(dims[2]))") }
        shapes[Self.inputName] = TensorShape(dims)
        var last = Self.inputName
        var modelOutputs: [String]?
        var heads: [YOLOHeadLayer] = []
        for (index, section) in config.sections.dropFirst().enumerated() {
            if section.type == "region" {
                endsInRegion = true
                guard index == config.sections.count - 2 else { throw section.error("is not the last layer; the network must end there") }
                guard heads.isEmpty else { throw section.error("follows [yolo] layers; a network ends in one kind of detection layer") }
                if region != .grid, !nodes.isEmpty {
                    let decoding = try DarknetRegion(section)
                    do {
                        try decoding.decode(last, &self, section: section)
                    } catch let error as ModelError {
                        throw section.error(error.message)
                    }
                    regionClasses = decoding.classes
                    modelOutputs = [YOLORegion.confidenceName, YOLORegion.coordinatesName]
                }
                break
            }
            if section.type == "yolo" {
                endsInRegion = true
                heads.append((section, index, last))
                if index == config.sections.count - 2 { modelOutputs = try yolo(config.sections[0], heads: heads) }
                outputs.append(last)
                continue
            }
            do {
                last = try add(section, index: index, input: last, &weights)
            } catch let error as ModelError {
                throw section.error(error.message)
            }
            outputs.append(last)
        }
        guard !nodes.isEmpty else { throw net.error("is followed by no layer") }
        if let head = heads.last, modelOutputs == nil {
            throw head.section.error("is followed by other layers; the network must end at its last [yolo] layer")
        }
        return Model(inputs: [Input(name: Self.inputName, kind: .array(shape: dims))],
                     outputs: (modelOutputs ?? [last]).map { Output(name: $0) }, nodes: nodes)
    }

    /// Emits the nodes of one layer; returns its output tensor.
    mutating func add(_ section: DarknetConfig.Section, index: Int, input: String, _ weights: inout DarknetWeights?) throws -> String {
        switch section.type {
        case "convolutional", "conv":
            return try convolutional(section, index: index, input: input, &weights)
        case "maxpool":
            let stride = try section.int("stride", 1)
            let size = try section.int("size", stride)
            let padding = try section.int("padding", max(size - 1, 0))
            guard size > 0, stride > 0 else { throw section.error("needs a size and stride of at least 1") }
            // Darknet: output = (input + padding - size) / stride + 1, windows from -padding/2; the rest of the
            // padding falls right and bottom (size 2 stride 1 pads only there).
            let edges = Edges(top: padding / 2, bottom: padding - padding / 2, left: padding / 2, right: padding - padding / 2)
            return try emit(Node("pool_\(index)", .pooling(Pooling(kind: .max, kernel: Size2(square: size), stride: Size2(square: stride),
                                                                    padding: .explicit(edges))), input: input))
        case "route":
            let sources: [Int] = try section.list("layers")
            guard !sources.isEmpty else { throw section.error("names no layers") }
            let tensors = try sources.map { source -> String in
                let layer = source < 0 ? index + source : source
                guard (0..<index).contains(layer) else { throw section.error("layers=\(section.string("layers", "")) names layer \(source), which is not before it") }
                return outputs[layer]
            }
            let parts = try group(tensors, section, index: index)
            if parts.count == 1 { return parts[0] }
            return try emit(Node(name: "route_\(index)", operation: .concat, inputs: parts, outputs: ["route_\(index)"]))
        case "reorg":
            return try reorg(section, index: index, input: input)
        case "upsample":
            return try upsample(section, index: index, input: input)
        case "shortcut":
            return try shortcut(section, index: index, input: input)
        default:
            throw section.error("is a layer type this toolkit does not convert yet (it takes convolutional, maxpool, route, reorg, upsample, "
                                + "shortcut, and a final region or yolo layers)")
        }
    }

    /// A convolution with its bias or batch normalization folded in
    /// (Darknet normalizes by sqrt(variance) + 0.000001), then its activation.
    mutating func convolutional(_ section: DarknetConfig.Section, index: Int, input: String, _ weights: inout DarknetWeights?) throws -> String {
        let channels = shapes[input]!.channels
        let filters = try section.int("filters", 1), size = try section.int("size", 1), stride = try section.int("stride", 1)
        let groups = try section.int("groups", 1)
        let padding = try section.int("pad", 0) != 0 ? size / 2 : try section.int("padding", 0)
        guard filters > 0, size > 0, stride > 0, groups > 0, channels % groups == 0, filters % groups == 0 else {
            throw section.error("filters=\(filters) size=\(size) stride=\(stride) groups=\(groups) do not fit \(channels) input channels")
        }
        guard let kernelCount = [filters, channels / groups, size, size].checkedProduct, kernelCount <= TensorShape.maximumCount else {
            throw section.error("filters=\(filters) size=\(size) on \(channels) channels make a kernel too large")
        }
        let normalized = try section.int("batch_normalize", 0) != 0
        var (kernel, bias) = (Weights(unloadedCount: kernelCount), Weights(unloadedCount: filters))
        if weights != nil {
            (kernel, bias) = try Self.read(&weights!, filters: filters, kernelCount: kernelCount, normalized: normalized,
                                           what: "the weights of layer \(index) ([convolutional], line \(section.line))")
        }
        let convolution = Convolution(outputChannels: filters, kernelChannels: channels / groups, groups: groups, kernel: Size2(square: size),
                                      stride: Size2(square: stride), padding: .explicit(Edges(all: padding)), weights: kernel, bias: bias)
        return try activate(section, index: index, input: try emit(Node("conv_\(index)", .convolution(convolution), input: input)), fallback: "logistic")
    }

    /// Darknet's `[reorg]` (stride s, as YOLOv2's passthrough uses it): the
    /// [c, h, w] input read as [c/s², h·s, w·s] (reorg_cpu indexes it so),
    /// rearranged space-to-depth with TensorFlow's channel order
    /// (`SpaceToDepth`), and that [c, h, w] result read as [c·s², h/s, w/s]
    /// (the last reshape keeps the values' order, as each does).
    mutating func reorg(_ section: DarknetConfig.Section, index: Int, input: String) throws -> String {
        let shape = shapes[input]!
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        let s = try section.int("stride", 1)
        guard try section.int("reverse", 0) == 0 else { throw section.error("reverse=1 is not converted yet") }
        guard s > 0, c % (s * s) == 0, h % s == 0, w % s == 0,
              var steps = SpaceToDepth.steps(channels: c / (s * s), height: h * s, width: w * s, block: s) else {
            throw section.error("stride=\(s) does not divide the input \(c)x\(h)x\(w) (channels by stride², height and width by stride)")
        }
        steps[steps.count - 1] = .reshape(targetShape: [c * s * s, h / s, w / s], order: .channelFirst)
        let name = "reorg_\(index)"
        var tensor = input
        for (step, operation) in steps.enumerated() {
            tensor = try emit(Node(step == steps.count - 1 ? name : "\(name)_\(step)", operation, input: tensor))
        }
        return tensor
    }

    /// A convolutional layer's kernel and bias, read in Darknet's order
    /// (biases, then batch-norm scales, means and variances, then the
    /// kernel) with the batch norm folded in. The kernel stays in the
    /// mapped file: the fold is applied as the writer streams it
    /// (`Weights.update(chunkwise:)`), as the Caffe and TensorFlow frontends do.
    static func read(_ weights: inout DarknetWeights, filters: Int, kernelCount: Int, normalized: Bool,
                     what: String) throws -> (kernel: Weights, bias: Weights) {
        var bias = try weights.read(filters, what)
        guard normalized else { return (NHWCLayout.unchanged(from: try weights.bytes(kernelCount, what)), Weights(bias)) }
        let scales = try weights.read(filters, what), means = try weights.read(filters, what), variances = try weights.read(filters, what)
        var kernel = NHWCLayout.unchanged(from: try weights.bytes(kernelCount, what))
        let factors = (0..<filters).map { scales[$0] / (variances[$0].squareRoot() + 0.000001) }
        for f in 0..<filters { bias[f] -= means[f] * factors[f] }
        let perFilter = kernelCount / filters
        kernel.update(chunkwise: { start, values in
            for i in values.indices { values[i] *= factors[(start + i) / perFilter] }
        })
        return (kernel, Weights(bias))
    }

    /// Appends `node` with its output's shape; returns its output.
    mutating func emit(_ node: Node) throws -> String {
        try ShapeInference.append([node], to: &nodes, shapes: &shapes)[0]
    }
}
