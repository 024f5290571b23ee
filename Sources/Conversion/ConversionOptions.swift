import ModelFormat
import Naming

/// What a user tells a converter beyond the source files, named as in
/// coremltools' Caffe and TensorFlow converters so a Python call translates
/// one to one: image inputs and their preprocessing, class labels, the
/// predicted feature name, metadata.
public struct ConversionOptions: Sendable {
    /// Inputs to expose as images (others stay multi-arrays).
    public var imageInputNames: [String] = []
    /// Image channels are in BGR order (as Caffe models trained with OpenCV expect).
    /// Each preprocessing value is nil unless given: a given one must reach
    /// an image input it applies to, or the conversion stops
    /// (`ImagePreprocessingError`) instead of dropping it.
    public var isBGR = false
    /// Added to the red channel after scaling (nil: 0).
    public var redBias: Float?
    public var greenBias: Float?
    public var blueBias: Float?
    /// A one-channel image's bias (nil: 0).
    public var grayBias: Float?
    /// Multiplies pixels before the biases are added (nil: 1; Darknet's
    /// converter gives its image input 1/255).
    public var imageScale: Float?
    /// A [C, H, W] image subtracted from the input (after scale and biases).
    public var meanImage: Weights?
    /// Makes the model a classifier with these labels (a detector's
    /// classes, with `yoloAnchors` or a detector's own decoding).
    public var classLabels: ClassLabels?
    /// The anchors (width, height pairs in grid cells) of a YOLOv2 output
    /// to decode into a detector (`applyYOLODecoding`).
    public var yoloAnchors: [Float]?
    /// The layout of a detector's output of decoded boxes, to end in
    /// Core ML's suppression (`applyDetectorOutput`); with no image
    /// options, it also makes the one input an image (`takeDetectorImageDefaults`).
    public var detectorOutput: DetectorOutputLayout?
    /// A detector's thresholds as given.
    public var detectionThresholds = DetectionThresholds()
    /// Repeats a detector's rows once per class (`Detector.rowsPerClass`,
    /// `applyRowsPerClass`): suppression per class as the source's.
    public var detectorRowsPerClass = false
    /// Converts a Caffe DetectionOutput whose nms_param top_k (candidates
    /// per class before suppression) would cap, without that cap: every
    /// candidate goes into Core ML's suppression.
    public var ignoresCandidateCap = false
    /// Where the labels came from, for error messages.
    public var classLabelsSource = "class labels"
    public var predictedFeatureName = "classLabel"
    /// Appends a softmax to the classifier's last layer (`--add-softmax`),
    /// for a graph that ends in a linear layer (logits).
    public var addSoftmax = false
    /// Adds the output `classMap`, each pixel's class, to a segmentation
    /// model; the labels then name its classes (`applyClassMap`).
    public var classMap = false
    public var predictedProbabilitiesName = "classLabelProbs"
    public var metadata = Metadata()
    /// torchvision's normalization, `(pixel / 255 - mean) / std` per
    /// channel, values in R, G, B order or one for all (`applyNormalization`).
    public var normalization: Normalization?

    public init() {}

    /// What every frontend does once its graph is built, in this order:
    /// image inputs, the graph passes, the classifier, the metadata
    /// (`description` when the user gave none), then validation, which also
    /// gives the outputs their shapes.
    /// - Parameter source: the file the model comes from, named in errors.
    /// - Throws: `ModelError`, its message after `source: `.
    public func finish(_ model: inout Model, description: String, source: String) throws {
        do {
            try finishModel(&model, description: description, source: source)
        } catch let error as ModelError {
            throw ModelError("\(source): \(error.message)")
        }
    }

    /// `finish(_:description:source:)` with the description every frontend
    /// gives: "Converted from <what> <the source's file name>".
    /// - Parameter what: the kind of source, "ONNX model".
    public func finish(_ model: inout Model, convertedFrom what: String, source: String) throws {
        try finish(&model, description: "Converted from \(what) \(source.split(separator: "/").last ?? "")", source: source)
    }

    func finish(_ model: inout Model, description: String) throws {
        try finishModel(&model, description: description, source: nil)
    }

    private func finishModel(_ model: inout Model, description: String, source: String?) throws {
        var options = self
        options.takeDetectorImageDefaults(model.inputs)
        try options.applyImageInputs(to: &model.inputs)
        try options.applyNormalization(to: &model)
        Pipeline.run(&model)
        try options.applyYOLODecoding(to: &model)
        try options.applyDetectorOutput(to: &model)
        try options.applyRowsPerClass(to: &model)
        try options.applyClassMap(to: &model)
        try options.applyClassifier(to: &model, source: source)
        model.metadata = options.metadata
        // The default names the source file: a byte of its name that is not
        // UTF-8 is stored as the text \xff (a model's strings are UTF-8).
        if model.metadata.shortDescription.isEmpty { model.metadata.shortDescription = PathBytes.escapingRawBytes(description) }
        let shapes = try model.validate()
        for index in model.outputs.indices { model.outputs[index].shape = shapes[model.outputs[index].name]?.featureShape ?? [] }
    }

    /// Turns the named array inputs into images with this preprocessing;
    /// a [1, C, H, W] tensor input (a ViT's pixels) into an image the
    /// network takes as that tensor (`ImageInput.asTensor`).
    /// - Throws: `ConversionOptionError` when a name is not an input (with
    ///   a suggestion); `ImagePreprocessingError` when preprocessing was
    ///   given without an image input, or names channels the image does not
    ///   have; `ModelError` when an array's shape is not [1 or 3, H, W], a
    ///   tensor's not [1, 1 or 3, H, W].
    public func applyImageInputs(to inputs: inout [Input]) throws {
        let names = inputs.map(\.name)
        let given = givenPreprocessing
        if imageInputNames.isEmpty, !given.isEmpty {
            let candidate = inputs.first { input in
                switch input.kind {
                case .array(let shape): shape.count == 3
                case .tensor(let shape): shape.count == 4 && shape[0] == 1
                case .image: false
                }
            }?.name ?? names.first ?? "NAME"
            throw ImagePreprocessingError(given, .noImageInput(candidate: candidate, inputs: names))
        }
        for name in imageInputNames {
            guard let index = inputs.firstIndex(where: { $0.name == name }) else {
                let suggestion = closestMatch(to: name, in: names, maxDistance: max(2, name.count / 3)).map { "; did you mean '\($0)'?" } ?? ""
                throw ConversionOptionError("\(option: .imageInput) '\(name)' is not an input of the model (its inputs: \(names.joined(separator: ", ")))\(suggestion)")
            }
            // A [C, H, W] array, or the [1, C, H, W] tensor of a network of rank-N layers (a ViT's pixels).
            let shape: [Int], asTensor: Bool
            switch inputs[index].kind {
            case .image(let image):
                throw ConversionOptionError("\(option: .imageInput) '\(name)': the input is an image (\(image.width)x\(image.height)) already")
            case .array(let dimensions) where dimensions.count == 3 && (dimensions[0] == 1 || dimensions[0] == 3):
                (shape, asTensor) = (dimensions, false)
            case .tensor(let dimensions) where dimensions.count == 4 && dimensions[0] == 1 && (dimensions[1] == 1 || dimensions[1] == 3):
                (shape, asTensor) = (Array(dimensions.dropFirst()), true)
            case .array(let dimensions):
                // Never the enum's debug text: the shape as a list.
                throw ModelError("input '\(name)' cannot be an image: its shape \(dimensions) is not [1 or 3, H, W]")
            case .tensor(let dimensions):
                throw ModelError("input '\(name)' cannot be an image: its shape \(dimensions) is not [1, 1 or 3, H, W]")
            }
            let colorParameters = given.filter { [.isBGR, .redBias, .greenBias, .blueBias].contains($0) }
            if shape[0] == 1, !colorParameters.isEmpty {
                throw ImagePreprocessingError(colorParameters, .colorForGrayscale(input: name))
            }
            if shape[0] == 3, given.contains(.grayBias) {
                throw ImagePreprocessingError([.grayBias], .grayForColor(input: name))
            }
            let colorSpace: ColorSpace = shape[0] == 1 ? .grayscale : isBGR ? .bgr : .rgb
            if let meanImage, meanImage.count != shape.checkedProduct {
                throw ModelError("the mean image has \(meanImage.count) values; input '\(name)' has \(shape[0])x\(shape[1])x\(shape[2])")
            }
            inputs[index].kind = .image(ImageInput(
                width: shape[2], height: shape[1], colorSpace: colorSpace, scale: imageScale ?? 1,
                redBias: redBias ?? 0, greenBias: greenBias ?? 0, blueBias: blueBias ?? 0, grayBias: grayBias ?? 0, meanImage: meanImage,
                asTensor: asTensor))
        }
    }

    /// Gives the image inputs `normalization`: with one std for all
    /// channels, as Core ML's preprocessing alone (scale `1 / (255 std)`,
    /// biases `-mean / std`); else scale `1 / 255` and biases `-mean`, then
    /// a scale layer after the input multiplies channel c by `1 / std[c]`
    /// (Core ML's image scale is one for all channels).
    ///
    ///     input -> readers   becomes   input -> <input>_std (scale 1/std) -> readers
    ///
    /// (for an image taken as a [1, C, H, W] tensor, `<input>_std` is a
    /// multiply by a [1, C, 1, 1] constant `<input>_std_constant`).
    /// - Throws: `ImagePreprocessingError` when the value counts are not the image's channels.
    public func applyNormalization(to model: inout Model) throws {
        guard let given = normalization else { return }
        for name in imageInputNames {
            guard let index = model.inputs.firstIndex(where: { $0.name == name }), case .image(var image) = model.inputs[index].kind else { continue }
            let channels = image.colorSpace == .grayscale ? 1 : 3
            // One value serves every channel.
            var normalization = given
            if normalization.mean.count == 1 { normalization.mean = Array(repeating: normalization.mean[0], count: channels) }
            if normalization.std.count == 1 { normalization.std = Array(repeating: normalization.std[0], count: channels) }
            for (parameter, values) in [(ImagePreprocessing.mean, normalization.mean), (.std, normalization.std)] where values.count != channels {
                throw ImagePreprocessingError([parameter], .valueCount(input: name, values: values.count, channels: channels))
            }
            let layer = !normalization.isOneScale
            let std = layer ? [Float](repeating: 1, count: channels) : normalization.std
            image.scale = 1 / (255 * std[0])
            let biases = zip(normalization.mean, std).map { -$0 / $1 }
            if channels == 1 { image.grayBias = biases[0] } else { (image.redBias, image.greenBias, image.blueBias) = (biases[0], biases[1], biases[2]) }
            model.inputs[index].kind = .image(image)
            guard layer else { continue }
            // The model's channel order: B, G, R for a BGR image.
            let inverse = normalization.std.map { 1 / $0 }
            let ordered = image.colorSpace == .bgr ? inverse.reversed() : inverse
            var output = name + "_std"
            while model.inputs.contains(where: { $0.name == output }) || model.nodes.contains(where: { $0.outputs.contains(output) }) { output += "_" }
            for node in model.nodes.indices { model.nodes[node].inputs = model.nodes[node].inputs.map { $0 == name ? output : $0 } }
            guard image.asTensor else {
                model.nodes.insert(Node(name: output, operation: .scale(Scale(shape: [channels], scale: Weights(Array(ordered)))),
                                        inputs: [name], outputs: [output]), at: 0)
                continue
            }
            // A [1, C, H, W] tensor (a ViT's pixels): a [1, C, 1, 1] constant, broadcast by a multiply.
            var constant = output + "_constant"
            while model.inputs.contains(where: { $0.name == constant }) || model.nodes.contains(where: { $0.outputs.contains(constant) }) { constant += "_" }
            model.nodes.insert(contentsOf: [
                Node(name: constant, operation: .defined(Constant(shape: [1, channels, 1, 1], data: Weights(Array(ordered)))), inputs: [], outputs: [constant]),
                Node(name: output, operation: .multiply(constant: 1), inputs: [name, constant], outputs: [output]),
            ], at: 0)
        }
    }

    /// Makes `model` a classifier when labels were given: its last layer's
    /// output becomes the probabilities feature (`classLabelProbs`).
    /// - Throws: `LabelFileError` naming the labels file when the label
    ///   count does not match the output's size (and `source`, the model's
    ///   file, when given), `ModelError` for a model with no layers, or
    ///   `--add-softmax` that does not fit the model.
    public func applyClassifier(to model: inout Model, source: String? = nil) throws {
        guard let labels = classLabels else {
            // A detector took the labels: its confidences are probabilities already.
            if addSoftmax { throw ModelError("\(option: .addSoftmax) applies to a classifier's scores, and this model is a detector") }
            return
        }
        guard let last = model.nodes.last, let tensor = last.outputs.first else {
            throw ModelError("class labels were given, but the model has no layers")
        }
        let shapes = try ShapeInference.shapes(of: model)
        if let shape = shapes[tensor], shape.count != labels.count {
            // The labels file is what does not fit: named first, as the error's place (not after the model's file).
            throw LabelFileError(path: classLabelsSource, message: "\(labels.count) class labels, but the last layer '\(last.name)'"
                                 + (source.map { " of \($0)" } ?? "") + " gives \(shape.count) values")
        }
        var probabilities = tensor
        if addSoftmax {
            var probe = model
            probe.classifier = Classifier(labels: labels, predictedFeatureName: predictedFeatureName, probabilitiesName: tensor)
            if AppReadiness.logitsLayer(probe) == nil {
                throw ModelError("\(option: .addSoftmax): the last layer '\(last.name)' gives probabilities already (a softmax or sigmoid)")
            }
            // Over the labels: the channels of a [C] or [C, 1, 1] output, the last axis of a tensor model's.
            let shape = shapes[tensor]
            let tensorModel = model.hasTensorInputs
            let operation: Op
            if tensorModel, let shape, shape.dimensions.last == labels.count {
                operation = .defined(Softmax(axis: -1))
            } else if !tensorModel, let shape, shape.channels == labels.count {
                operation = .softmax
            } else {
                throw ModelError("\(option: .addSoftmax): the last layer '\(last.name)' gives \(shape?.description ?? "values of unknown shape"), not one score per label on one axis")
            }
            probabilities = tensor + "_softmax"
            while shapes[probabilities] != nil || model.inputs.contains(where: { $0.name == probabilities }) { probabilities += "_" }
            model.nodes.append(Node(name: probabilities, operation: operation, inputs: [tensor], outputs: [probabilities]))
        }
        model.renameTensor(probabilities, to: predictedProbabilitiesName)
        model.outputs.removeAll { [tensor, probabilities, predictedProbabilitiesName].contains($0.name) }
        model.classifier = Classifier(labels: labels, predictedFeatureName: predictedFeatureName,
                                      probabilitiesName: predictedProbabilitiesName)
    }
}

/// The image preprocessing a user can give, in the order errors list them.
public enum ImagePreprocessing: Sendable, CaseIterable {
    case isBGR, redBias, greenBias, blueBias, grayBias, imageScale, meanImage, mean, std
}

extension ConversionOptions {
    /// The preprocessing values given (not nil; `isBGR` true), in order.
    public var givenPreprocessing: [ImagePreprocessing] {
        ImagePreprocessing.allCases.filter { parameter in
            switch parameter {
            case .isBGR: isBGR
            case .redBias: redBias != nil
            case .greenBias: greenBias != nil
            case .blueBias: blueBias != nil
            case .grayBias: grayBias != nil
            case .imageScale: imageScale != nil
            case .meanImage: meanImage != nil
            case .mean: normalization?.givesMean ?? false
            case .std: normalization?.givesStd ?? false
            }
        }
    }
}

/// Preprocessing that does not fit the model, with the parameters it
/// concerns (a program names them by its own spellings: `coreml-convert`
/// says `--red-bias`); its description names the Swift properties.
public struct ImagePreprocessingError: Error, Sendable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        /// Given without an image input; `candidate` is the input to suggest.
        case noImageInput(candidate: String, inputs: [String])
        /// Color values (`isBGR`, a red, green or blue bias) for a one-channel image input.
        case colorForGrayscale(input: String)
        /// A gray bias for a three-channel image input.
        case grayForColor(input: String)
        /// A mean or std of `values` values for an image input of `channels` channels.
        case valueCount(input: String, values: Int, channels: Int)
    }

    public var parameters: [ImagePreprocessing]
    public var problem: Problem

    public init(_ parameters: [ImagePreprocessing], _ problem: Problem) {
        self.parameters = parameters
        self.problem = problem
    }

    public var description: String { message(naming: { "\($0)" }, imageInput: { "imageInputNames [\"\($0)\"]" }) }

    /// The message with each parameter as `name` spells it, and the way to
    /// name an image input as `imageInput` does.
    public func message(naming name: (ImagePreprocessing) -> String, imageInput: (String) -> String) -> String {
        let names = parameters.map(name).joined(separator: ", ")
        switch problem {
        case .noImageInput(let candidate, let inputs):
            return "\(names) \(parameters.count == 1 ? "applies" : "apply") to an image input, and none is named: "
                + "add \(imageInput(candidate)) (the model's inputs: \(inputs.joined(separator: ", ")))"
        case .colorForGrayscale(let input):
            return "input '\(input)' has one channel (a grayscale image): \(names) do not apply to it; its bias is \(name(.grayBias))"
        case .grayForColor(let input):
            return "input '\(input)' has three channels (a color image): \(names) does not apply to it; "
                + "use \(name(.redBias)), \(name(.greenBias)) and \(name(.blueBias))"
        case .valueCount(let input, let values, let channels):
            return "\(names) gives \(values) value\(values == 1 ? "" : "s"); input '\(input)' is "
                + (channels == 1 ? "a grayscale image (one value)" : "a color image (three values, R,G,B)")
        }
    }
}

/// Conversion options that do not fit the model (a preprocessing option
/// with no image input to apply to, an input name the model does not have):
/// a usage error in the command-line programs.
public typealias ConversionOptionError = MessageError<ConversionOptionErrorKind>
public enum ConversionOptionErrorKind {}

extension Model {
    /// Renames a tensor wherever it is produced or read, and in the outputs.
    public mutating func renameTensor(_ old: String, to new: String) {
        guard old != new else { return }
        for index in nodes.indices {
            nodes[index].inputs = nodes[index].inputs.map { $0 == old ? new : $0 }
            nodes[index].outputs = nodes[index].outputs.map { $0 == old ? new : $0 }
        }
        for index in outputs.indices where outputs[index].name == old { outputs[index].name = new }
    }
}

/// torchvision's `transforms.Normalize(mean, std)` on pixels scaled to 0-1:
/// `(pixel / 255 - mean[c]) / std[c]`, values in R, G, B order (one value:
/// the same for every channel).
public struct Normalization: Equatable, Sendable {
    public var mean: [Float]
    public var std: [Float]
    /// Whether the mean, the std was given (not its default: 0, 1).
    public var givesMean: Bool, givesStd: Bool

    /// One of the two may be left out: the mean is then 0, the std 1 (as
    /// many values as the other has).
    public init(mean: [Float]?, std: [Float]?) {
        let count = max(mean?.count ?? 0, std?.count ?? 0)
        self.mean = mean ?? Array(repeating: 0, count: count)
        self.std = std ?? Array(repeating: 1, count: count)
        (givesMean, givesStd) = (mean != nil, std != nil)
    }

    /// Whether one scale serves all channels (Core ML's preprocessing
    /// alone, no layer).
    public var isOneScale: Bool { std.allSatisfy { $0 == std[0] } }

    /// Whether `value` can be a std: positive, and with reciprocals (the
    /// layer's `1 / std`, Core ML's image scale `1 / (255 std)`) that are
    /// normal floats, so from 1.2e-38 to 3.3e35. A subnormal std (1e-40)
    /// would make the scale infinite, a huge one 0, which Core ML reads as unset.
    public static func isUsableStd(_ value: Float) -> Bool {
        value > 0 && value.isNormal && (1 / value).isNormal && (1 / (255 * value)).isNormal
    }
}
