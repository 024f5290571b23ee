import CLI
import CodeGeneration
import FileIO
import Inspection
import ModelFiles
import CaffeFrontend
import CoreMLBackend
import Conversion
import ModelFormat
import Naming

/// `convert caffe`: deploy prototxt + weights -> .mlmodel, with the options
/// of coremltools' removed Caffe converter.
enum CaffeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "caffe", abstract: "Convert a Caffe model (deploy .prototxt + .caffemodel or .caffemodel.h5) to Core ML.",
        discussion: """
            Reads both Caffe formats (current `layer {}` and legacy V1 `layers {}`). Weights are matched to the deploy \
            layers by name. Options follow coremltools.converters.caffe.convert: image_input_names -> --image-input, \
            is_bgr -> --is-bgr, red_bias -> --red-bias, image_scale -> --image-scale, class_labels -> --class-labels. \
            Core ML computes scale * pixel + bias per channel, scale first: Caffe's (x - mean) * s is --image-scale s \
            with biases -mean * s. An SSD deploy definition (PriorBox layers and a DetectionOutput, as MobileNet-SSD's) \
            becomes an object detector Vision reads: the pipeline of the network, the box decoding as layers (the priors \
            computed now) and non-maximum suppression with the DetectionOutput's thresholds, with the outputs `confidence` \
            and `coordinates`; --class-labels names the classes (with or without the background's label).
            """,
        examples: [
            ("A classifier Vision reads: BGR image input, the mean subtracted, labels", "coreml-convert caffe deploy_age.prototxt age_net.caffemodel --image-input data --is-bgr --blue-bias -78.4 --green-bias -87.8 --red-bias -114.9 --class-labels age_labels.txt -o AgeNet.mlmodel"),
            ("The weights stored in 8 bits, and the typed Swift class beside the model",
             "coreml-convert caffe deploy_age.prototxt age_net.caffemodel --image-input data --quantize-weights 8 "
                 + "--generate-classes -o AgeNet.mlmodel"),
        ])
    static let options = Options {
        Positional("prototxt", valueName: "deploy.prototxt", help: "The deploy net definition.")
        Positional("weights", valueName: "weights.caffemodel",
                   help: "Trained weights (.caffemodel, or HDF5 .caffemodel.h5). The two files may come in either order (coremltools took weights first): they are told apart by content.")
        ConversionFlags.outputOptions()
        ConversionFlags.imageOptions
        Option("mean-image", valueName: "mean.binaryproto", formerSpellings: ["mean"],
               help: "A mean image to subtract (Caffe BlobProto, in the net's channel order).")
        ConversionFlags.labelAndMetadataOptions
        ConversionFlags.detectorOptions
        ConversionFlags.candidateCapOption
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        var options = try ConversionFlags.options(from: arguments)
        let (deploy, weights) = try ConversionFlags.caffePair(try arguments.string("prototxt"), try arguments.string("weights"))
        options.detectionThresholds = try ConversionFlags.detectionThresholds(arguments)
        ConversionFlags.applyDetectorFlags(arguments, to: &options)
        options.ignoresCandidateCap = arguments.flag("ignore-top-k")
        let mean = arguments.optionalString("mean-image")
        if let mean { try ConversionFlags.refuseOtherKinds(mean, what: "a Caffe mean image (mean.binaryproto)") }
        let inputs = [deploy, weights] + [mean].compactMap { $0 } + ConversionFlags.inputFiles(arguments)
        try convert(to: output, inputs: inputs,
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            if let mean { options.meanImage = try CaffeConverter.readMeanImage(mean) }
            let (model, batches) = try CaffeConverter.conversion(deploy: deploy, weights: weights, options: options)
            return (model, CaffeConverter.batchNote(batches).map { [$0] } ?? [])
        }
    }
}

/// The options every converter shares, declared once.
enum ConversionFlags {
    static let outputHelp = "Where to write the Core ML model, a name ending in .mlmodel, or .mlpackage with --convert-to mlprogram "
        + "(an existing file or package is replaced only by a complete new one)."

    /// `-o, --output` (the one spelling of the output file in every
    /// subcommand), `--json` and `--quiet`.
    static func outputOptions(default defaultPath: String? = nil) -> [OptionSpec] {
        [
            Option("output", short: "o", valueName: "Model.mlmodel", default: defaultPath, required: defaultPath == nil,
                   otherSpellings: ["output-file", "output-path", "out"], help: outputHelp).spec,
            Flag("json", help: "Print the written model's summary as JSON (the schema of inspect --json) instead of text.").spec,
            Flag("quiet", short: "q", help: "Print nothing when the conversion succeeds (errors still go to stderr).").spec,
            Flag("generate-classes", formerValues: FormerValues(option: "language", values: ["swift", "objc"]),
                 help: "Also write the model's typed classes next to it, as coreml-generate does, in --language.").spec,
            Option("language", valueName: "swift|objc", default: "swift",
                   help: "The language of --generate-classes: swift (Name.swift) or objc (Name.h, Name.m), as coreml-generate's.").spec,
            ProgramFlags.option, ProgramFlags.precisionOption,
        ] + CompressionFlags.options
    }

    /// The output file and report the options ask for. A name that does
    /// not end in `.mlmodel` is refused: Xcode recognises a model by that
    /// extension, an `.mlpackage` folder is for `--convert-to mlprogram`
    /// only, and `--output softmax` was how an old grammar named a tensor.
    static func output(_ arguments: ParsedArguments) throws -> OutputRequest {
        let path = try arguments.string("output")
        let name = FileSystem.name(of: path)
        let dot = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]).lowercased() }
        let precision = try CompressionFlags.precision(arguments)
        let granularity = try CompressionFlags.granularity(arguments, precision: precision,
                                                           program: try ProgramFlags.kind(arguments) == "mlprogram")
        let program = try ProgramFlags.programPrecision(arguments, path: path, extension: dot, precision: precision, granularity: granularity)
        guard program != nil || dot == "mlmodel" else {
            let tensorHint = arguments.options.spec(named: "output-feature-name") != nil
                ? "; to make a tensor an output of the model, use --output-feature-name \(path)" : ""
            throw UsageError("--output \(path): a Core ML model file's name ends in .mlmodel (Xcode goes by it)\(tensorHint)")
        }
        if arguments.flag("json") && arguments.flag("quiet") { throw UsageError("--json and --quiet: choose one") }
        let probes = arguments.strings("probe")
        if !probes.isEmpty, precision == nil || precision == .float32 {
            throw UsageError("--probe is the input of the fidelity report of a compressed model: give --precision float16 or --quantize-weights")
        }
        if arguments.isPresent("language") && !arguments.flag("generate-classes") {
            throw UsageError("--language is the language of the typed classes --generate-classes writes: add --generate-classes")
        }
        let language = try arguments.string("language")
        guard let classes = SourceLanguage(rawValue: language) else {
            throw UsageError("--language takes swift or objc, not '\(TextEscaping.line(language))'")
        }
        return OutputRequest(path: path, report: arguments.flag("json") ? .json : arguments.flag("quiet") ? .quiet : .text,
                             precision: precision, granularity: granularity, probes: probes,
                             classes: arguments.flag("generate-classes") ? classes : nil,
                             warnsIfNotAppReady: arguments.options.spec(named: "image-input") != nil, program: program)
    }

    /// `--input-shape name=1,H,W,C` (coremltools' inputs=[TensorType(name,
    /// shape)], tfcoreml's input_name_shape_dict), for graphs and models
    /// whose input sizes are unknown or to be fixed, in the source's own
    /// layout: `layout` is "1,H,W,C" (TensorFlow, Keras) or "1,C,H,W"
    /// (ONNX). It was `--input`, which is coreml-predict's input file.
    static func inputShapeOptions(layout: String) -> [OptionSpec] {
        [Option("input-shape", valueName: "name=\(layout)", repeatable: true, otherSpellings: ["input-name-shape-dict", "inputs", "shape"],
                formerSpellings: ["input"],
                help: "An input's shape in the model's own layout, batch first (default: the one the file declares); each input once.").spec]
    }

    /// The `--input-shape` values, as (name, shape); a name given twice is
    /// refused (`key`: what makes two names one input).
    static func inputShapes(_ arguments: ParsedArguments, key: (String) -> String = { $0 }) throws -> [(name: String, shape: [Int])] {
        let shapes = try arguments.values("input-shape") { text in
            let parts = text.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let shape = Optional(parts[1].split(separator: ",").compactMap { Int($0) }),
                  shape.count == parts[1].split(separator: ",").count, !shape.isEmpty else {
                throw UsageError("--input-shape takes \(arguments.options.spec(named: "input-shape")?.valueName ?? "name=1,H,W,C"), got '\(text)'")
            }
            return (String(parts[0]), shape)
        }
        try UsageError.checkDistinct(shapes.map(\.0), option: "input-shape", key: key)
        return shapes
    }

    static let imageOptions: [OptionSpec] = [
        Option("image-input", valueName: "name", repeatable: true, help: "Treat this input as an image (each input once).").spec,
        Flag("is-bgr", help: "Image inputs take channels in BGR order (Caffe models trained with OpenCV).").spec,
        Option("red-bias", valueName: "value", default: "0", help: "Added to the red channel after scaling.").spec,
        Option("green-bias", valueName: "value", default: "0", help: "Added to the green channel after scaling.").spec,
        Option("blue-bias", valueName: "value", default: "0", help: "Added to the blue channel after scaling.").spec,
        Option("gray-bias", valueName: "value", default: "0", help: "Added to grayscale images after scaling.").spec,
        Option("image-scale", valueName: "value", default: "1", help: "Multiplies pixel values before the biases; not 0 (Core ML reads a scale of 0 as 1).").spec,
    ]

    static let labelAndMetadataOptions: [OptionSpec] = [
        Option("class-labels", valueName: "labels.txt", help: "One label per line, UTF-8 (a byte-order mark is dropped): makes the model a classifier (classLabel, classLabelProbs), or names a detector's classes.").spec,
        Flag("add-softmax", help: "Append a softmax to the classifier's last layer, for a model that ends in a linear layer: its class scores (logits) become the probabilities classLabelProbs promises.").spec,
        Flag("class-map", help: "For a segmentation model, whose output scores each class at each pixel: add the output classMap, each pixel's class index (the argmax over the classes); --class-labels then names the classes for Xcode's preview instead of making a classifier.").spec,
        Option("predicted-feature-name", valueName: "name", default: "classLabel", text: true, help: "Name of the top-label output.").spec,
        Option("author", valueName: "text", text: true, help: "Metadata: author.").spec,
        Option("license", valueName: "text", text: true, help: "Metadata: license.").spec,
        Option("description", valueName: "text", text: true, help: "Metadata: short description.").spec,
        Option("model-version", valueName: "text", text: true,
               help: "Metadata: the model's version string (--version prints the toolkit's own).").spec,
        deploymentTargetOption,
    ]

    static let deploymentTargetOption = Option(
        "minimum-deployment-target", valueName: "target",
        help: "The oldest OS the model must load on (iOS11, iOS13, macOS10_15, ...; default: the oldest its layers allow). "
            + "iOS15 and later (macOS12, tvOS15, watchOS8) are an ML program's: with --convert-to mlprogram, which writes iOS15 "
            + "by default, iOS16, iOS17 or iOS18 when named (iOS18 too when --quantize-weights asks for its forms).").spec

    /// A detector's thresholds (the pipeline's stored values; apps can
    /// override them per prediction through its optional inputs).
    static let detectorOptions: [OptionSpec] = [
        Option("iou-threshold", valueName: "0-1",
               help: "Drop a box that overlaps a more confident one of the same label by more than this intersection over union (default: the source model's, else 0.45).").spec,
        Option("confidence-threshold", valueName: "value",
               help: "Drop boxes whose best class confidence is below this (default: the source model's, else 0.25).").spec,
        Flag("rows-per-class",
             help: "Suppress each class on its own, as Caffe's DetectionOutput, OpenCV and torchvision do: each box's row comes once "
                 + "per class, holding that class's confidence alone, so a box is kept under every label it passes (Core ML's "
                 + "suppression keeps a box under its top label only). Cost: N boxes of C classes make N x C rows into the "
                 + "suppression, its confidences N x C x C values a prediction.").spec,
    ]

    /// Caffe SSD's option for a DetectionOutput whose nms_param top_k caps.
    static let candidateCapOption = Flag(
        "ignore-top-k",
        help: "Convert a DetectionOutput whose nms_param top_k caps each class's candidates before suppression without that cap "
            + "(Core ML's suppression has none; refused otherwise): every candidate goes into the suppression.").spec

    /// The detector options besides the thresholds.
    static func applyDetectorFlags(_ arguments: ParsedArguments, to options: inout ConversionOptions) {
        options.detectorRowsPerClass = arguments.flag("rows-per-class")
    }

    static func detectionThresholds(_ arguments: ParsedArguments) throws -> DetectionThresholds {
        let iou = try arguments.optionalValue("iou-threshold", as: Double.self)
        let confidence = try arguments.optionalValue("confidence-threshold", as: Double.self)
        if let iou, !(0...1).contains(iou) { throw UsageError("--iou-threshold takes a value from 0 to 1, not \(iou)") }
        if let confidence, !(confidence >= 0 && confidence.isFinite) {
            throw UsageError("--confidence-threshold takes a value of 0 or more, not \(confidence)")
        }
        return DetectionThresholds(iou: iou, confidence: confidence)
    }

    /// The Core ML specification version --minimum-deployment-target asks for (nil when absent).
    static func minimumSpecificationVersion(_ arguments: ParsedArguments) throws -> Int32? {
        guard let text = arguments.optionalString("minimum-deployment-target") else { return nil }
        guard let target = DeploymentTarget(text) else {
            let suggestion = closestMatch(to: text, in: DeploymentTarget.names, maxDistance: 3).map { "; did you mean \($0)?" } ?? ""
            throw UsageError("--minimum-deployment-target '\(text)' is not one of \(DeploymentTarget.names.joined(separator: ", "))\(suggestion)")
        }
        return target.specificationVersion
    }

    /// The deploy definition and the weights, in whichever order they were
    /// given: told apart by content (each file looked at once). A file that
    /// is clearly neither (an image, a Core ML model, a TensorFlow graph) is
    /// refused, naming it.
    static func caffePair(_ first: String, _ second: String) throws -> (deploy: String, weights: String) {
        let (definition, weightFiles) = (Frontend.caffe, Frontend.caffeWeights)
        let caffe = definition.formats.union(weightFiles.formats)
        var (deploy, weights) = (try ModelFiles.kind(of: first), try ModelFiles.kind(of: second))
        if deploy.format.map(weightFiles.formats.contains) == true, weights.format == .caffePrototxt { swap(&deploy, &weights) }
        try deploy.check(expected: definition.formats, what: definition.name, sameProgram: caffe)
        try weights.check(expected: weightFiles.formats, what: weightFiles.name, sameProgram: caffe)
        return (deploy.path, weights.path)
    }

    /// Refuses an image, an array or an archive where a file of another
    /// kind (a mean image, labels) is expected.
    static func refuseOtherKinds(_ path: String, what: String) throws {
        if let other = try ModelFiles.kind(of: path).otherKind { throw ConversionError("\(path): is \(other), not \(what)") }
    }

    /// The files the shared options read (the labels), which the output must not replace.
    /// The options of a converter that reads one model file: the file,
    /// the output, input shapes, image, label and metadata options.
    static func modelFileOptions(_ valueName: String, _ help: String, layout: String) -> [OptionSpec] {
        [Positional("model", valueName: valueName, help: help).spec] + outputOptions() + inputShapeOptions(layout: layout) + imageOptions
            + labelAndMetadataOptions
    }

    /// The run of a converter that reads one model file (positional
    /// "model"): usage mistakes first, then the file checked against
    /// `frontend`, then the model `make` converts, written as `convert` writes.
    static func convertModelFile(_ arguments: ParsedArguments, _ frontend: Frontend, featureName: (String) -> String = { $0 },
                                 _ make: (_ path: String, _ options: ConversionOptions, _ shapes: [InputShape]) throws -> Model) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        var options = try ConversionFlags.options(from: arguments)
        options.normalization = try normalization(arguments)
        let notes = normalizationNotes(options)
        try UsageError.checkDistinct(options.imageInputNames, option: "image-input", key: featureName)
        options.imageInputNames = options.imageInputNames.map(featureName)
        let shapes = try ConversionFlags.inputShapes(arguments).map { InputShape(name: $0.name, shape: $0.shape) }
        let source = try arguments.string("model")
        try frontend.require(source)
        try convert(to: output, inputs: [source] + ConversionFlags.inputFiles(arguments),
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try make(source, options, shapes), notes)
        }
    }

    /// What the file's summary cannot show: where a per-channel std went.
    static func normalizationNotes(_ options: ConversionOptions) -> [(label: String, items: [String])] {
        options.normalization.map { normalization in
            normalization.isOneScale ? [] : [(label: "Normalized", items: options.imageInputNames.map {
                "scale layer \($0)_std: 1/std per channel (Core ML's image scale is one for all)"
            })]
        } ?? []
    }

    /// `--mean` and `--std` (torchvision's normalization, on 0-1 pixels),
    /// for the converters that declare them (ONNX, TensorFlow, Keras).
    static let normalizationOptions: [OptionSpec] = [
        Option("mean", valueName: "r,g,b", help: "The normalization mean on 0-1 pixels (torchvision's 0.485,0.456,0.406; 0.5 with "
               + "--std 0.5 for [-1, 1]): the image input gives the model (pixel / 255 - mean) / std per channel (one value "
               + "serves every channel).").spec,
        Option("std", valueName: "r,g,b", help: "The normalization std (torchvision's 0.229,0.224,0.225; default 1): Core ML's image "
               + "scale is one for all channels, so different values add a scale layer after the input.").spec,
    ]

    /// The normalization `--mean` and `--std` give (nil when neither is
    /// given or the converter has no such options).
    static func normalization(_ arguments: ParsedArguments) throws -> Normalization? {
        guard arguments.options.spec(named: "std") != nil else { return nil }
        let mean = try arguments.optionalValue("mean") { try numbers($0, std: false) }
        let std = try arguments.optionalValue("std") { try numbers($0, std: true) }
        guard mean != nil || std != nil else { return nil }
        let other = ["image-scale", "red-bias", "green-bias", "blue-bias", "gray-bias"].filter { arguments.isPresent($0) }
        if !other.isEmpty {
            throw UsageError("--mean and --std set the image's scale and biases: give them without "
                             + other.map { "--\($0)" }.joined(separator: ", "))
        }
        return Normalization(mean: mean, std: std)
    }

    /// "0.485,0.456,0.406": one or three finite numbers (for a std, ones
    /// `Normalization.isUsableStd` takes).
    private static func numbers(_ text: String, std: Bool) throws -> [Float] {
        let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard [1, 3].contains(values.count), values.allSatisfy({ $0 != nil && $0!.isFinite && (!std || Normalization.isUsableStd($0!)) }) else {
            throw UsageError(std ? "takes one or three positive numbers separated by commas (R,G,B), as 0.229,0.224,0.225, "
                                 + "each from 1.2e-38 to 3.3e35 (its reciprocal is the image's scale)"
                             : "takes one or three numbers separated by commas (R,G,B), as 0.485,0.456,0.406")
        }
        return values.map { $0! }
    }

    static func inputFiles(_ arguments: ParsedArguments) -> [String] {
        [arguments.optionalString("class-labels")].compactMap { $0 }
    }

    /// The option that gives each preprocessing value.
    static func spelling(_ parameter: ImagePreprocessing) -> String {
        switch parameter {
        case .isBGR: "--is-bgr"
        case .redBias: "--red-bias"
        case .greenBias: "--green-bias"
        case .blueBias: "--blue-bias"
        case .grayBias: "--gray-bias"
        case .imageScale: "--image-scale"
        case .meanImage: "--mean-image"
        case .mean: "--mean"
        case .std: "--std"
        }
    }

    /// A preprocessing mistake in the options' spellings.
    static func message(_ error: ImagePreprocessingError) -> String {
        error.message(naming: spelling, imageInput: { "--image-input \($0)" })
    }

    static func options(from arguments: ParsedArguments) throws -> ConversionOptions {
        var options = ConversionOptions()
        if arguments.isPresent("predicted-feature-name") && !arguments.isPresent("class-labels") {
            throw UsageError("--predicted-feature-name names the label output of a classifier: give its labels with --class-labels")
        }
        options.imageInputNames = arguments.strings("image-input")
        try UsageError.checkDistinct(options.imageInputNames, option: "image-input")
        options.isBGR = arguments.flag("is-bgr")
        // nil unless given: a given value must reach an image input (`ConversionOptions.givenPreprocessing`).
        func given(_ name: String) throws -> Float? { arguments.isPresent(name) ? try arguments.float(name) : nil }
        options.redBias = try given("red-bias")
        options.greenBias = try given("green-bias")
        options.blueBias = try given("blue-bias")
        options.grayBias = try given("gray-bias")
        options.imageScale = try given("image-scale")
        // proto3: Core ML reads a channelScale of 0 as unset, 1; a value that rounds to 0 in float32 too.
        if options.imageScale == 0 {
            throw UsageError("--image-scale \(arguments.optionalString("image-scale") ?? "0") is 0 in float32, which Core ML reads as unset (a scale of 1)")
        }
        if let labels = arguments.optionalString("class-labels") {
            options.classLabels = .strings(try LabelFile.read(path: labels))
            options.classLabelsSource = labels
        }
        options.predictedFeatureName = try arguments.string("predicted-feature-name")
        options.addSoftmax = arguments.flag("add-softmax")
        options.classMap = arguments.flag("class-map")
        if options.classMap && arguments.isPresent("predicted-feature-name") {
            throw UsageError("--predicted-feature-name names a classifier's label output; --class-map's output is classMap")
        }
        if options.addSoftmax && options.classLabels == nil {
            throw UsageError("--add-softmax appends a softmax to a classifier's scores: give its labels with --class-labels")
        }
        options.metadata = Metadata(author: arguments.optionalString("author") ?? "", license: arguments.optionalString("license") ?? "",
                                    shortDescription: arguments.optionalString("description") ?? "",
                                    version: arguments.optionalString("model-version") ?? "")
        return options
    }
}
