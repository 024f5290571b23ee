import CLI
import CaffeFrontend
import CoreMLBackend
import FrontendSupport
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
            with biases -mean * s.
            """)
    static let options = Options {
        Positional("prototxt", valueName: "deploy.prototxt", help: "The deploy net definition.")
        Positional("weights", valueName: "weights.caffemodel", help: "Trained weights (.caffemodel, or HDF5 .caffemodel.h5).")
        Option("output", short: "o", valueName: "Model.mlmodel", required: true, help: ConversionFlags.outputHelp)
        ConversionFlags.imageOptions
        Option("mean", valueName: "mean.binaryproto", help: "A mean image to subtract (Caffe BlobProto, in the net's channel order).")
        ConversionFlags.labelAndMetadataOptions
    }

    static func run(_ arguments: ParsedArguments) throws {
        var options = try ConversionFlags.options(from: arguments)
        let deploy = try arguments.string("prototxt"), weights = try arguments.string("weights")
        let mean = arguments.optionalString("mean")
        let inputs = [deploy, weights] + [mean].compactMap { $0 } + ConversionFlags.inputFiles(arguments)
        try convert(to: try arguments.string("output"), inputs: inputs,
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            if let mean { options.meanImage = try CaffeConverter.readMeanImage(mean) }
            return try CaffeConverter.convert(deploy: deploy, weights: weights, options: options)
        }
    }
}

/// The options every converter shares, declared once.
enum ConversionFlags {
    static let outputHelp = "Where to write the Core ML model (an existing file is replaced only by a complete new one)."

    static let imageOptions: [OptionSpec] = [
        Option("image-input", valueName: "name", repeatable: true, help: "Treat this input as an image.").spec,
        Flag("is-bgr", help: "Image inputs take channels in BGR order (Caffe models trained with OpenCV).").spec,
        Option("red-bias", valueName: "value", default: "0", help: "Added to the red channel after scaling.").spec,
        Option("green-bias", valueName: "value", default: "0", help: "Added to the green channel after scaling.").spec,
        Option("blue-bias", valueName: "value", default: "0", help: "Added to the blue channel after scaling.").spec,
        Option("gray-bias", valueName: "value", default: "0", help: "Added to grayscale images after scaling.").spec,
        Option("image-scale", valueName: "value", default: "1", help: "Multiplies pixel values before the biases.").spec,
    ]

    static let labelAndMetadataOptions: [OptionSpec] = [
        Option("class-labels", valueName: "labels.txt", help: "One label per line: makes the model a classifier (classLabel, classLabelProbs).").spec,
        Option("predicted-feature-name", valueName: "name", default: "classLabel", help: "Name of the top-label output.").spec,
        Option("author", valueName: "text", help: "Metadata: author.").spec,
        Option("license", valueName: "text", help: "Metadata: license.").spec,
        Option("description", valueName: "text", help: "Metadata: short description.").spec,
        Option("model-version", valueName: "text",
               help: "Metadata: the model's version string (--version prints the toolkit's own).").spec,
        Option("minimum-deployment-target", valueName: "target",
               help: "The oldest OS the model must load on (iOS11, iOS13, macOS10_15, ...; default: the oldest its layers allow).").spec,
    ]

    /// The Core ML specification version --minimum-deployment-target asks for (1 when absent).
    static func minimumSpecificationVersion(_ arguments: ParsedArguments) throws -> Int32 {
        guard let text = arguments.optionalString("minimum-deployment-target") else { return 1 }
        guard let target = DeploymentTarget(text) else {
            let suggestion = closestMatch(to: text, in: DeploymentTarget.names, maxDistance: 3).map { "; did you mean \($0)?" } ?? ""
            throw UsageError("--minimum-deployment-target \(text) is not one of \(DeploymentTarget.names.joined(separator: ", "))\(suggestion)")
        }
        return target.specificationVersion
    }

    /// The files the shared options read (the labels), which the output must not replace.
    static func inputFiles(_ arguments: ParsedArguments) -> [String] {
        [arguments.optionalString("class-labels")].compactMap { $0 }
    }

    static func options(from arguments: ParsedArguments) throws -> ConversionOptions {
        var options = ConversionOptions()
        let preprocessing = ["is-bgr", "red-bias", "green-bias", "blue-bias", "gray-bias", "image-scale", "mean"]
        options.givenImageOptions = preprocessing.filter { arguments.options.spec(named: $0) != nil && arguments.isPresent($0) }
            .map { "--\($0)" }
        if arguments.isPresent("predicted-feature-name") && !arguments.isPresent("class-labels") {
            throw UsageError("--predicted-feature-name names the label output of a classifier: give its labels with --class-labels")
        }
        options.imageInputNames = arguments.strings("image-input")
        options.isBGR = arguments.flag("is-bgr")
        options.redBias = try arguments.float("red-bias")
        options.greenBias = try arguments.float("green-bias")
        options.blueBias = try arguments.float("blue-bias")
        options.grayBias = try arguments.float("gray-bias")
        options.imageScale = try arguments.float("image-scale")
        if let labels = arguments.optionalString("class-labels") {
            options.classLabels = .strings(try LabelFile.read(path: labels))
            options.classLabelsSource = labels
        }
        options.predictedFeatureName = try arguments.string("predicted-feature-name")
        options.metadata = Metadata(author: arguments.optionalString("author") ?? "", license: arguments.optionalString("license") ?? "",
                                    shortDescription: arguments.optionalString("description") ?? "",
                                    version: arguments.optionalString("model-version") ?? "")
        return options
    }
}
