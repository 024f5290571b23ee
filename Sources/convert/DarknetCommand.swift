import CLI
import Conversion
import DarknetFrontend
import ModelFiles

/// `convert darknet`: a Darknet network (.cfg + .weights, YOLO's format) -> .mlmodel.
enum DarknetCommand: Command {
    static let configuration = CommandConfiguration(
        name: "darknet", abstract: "Convert a Darknet network (.cfg + .weights) to Core ML.",
        discussion: """
            Reads convolutional (batch norm, leaky / relu / logistic / tanh / swish / mish / linear), maxpool, route (with \
            groups), reorg, upsample and shortcut layers up to a final [region] layer (YOLOv2) or [yolo] layers (YOLOv3, \
            YOLOv4: every head's boxes in one list). A network ending in [region] or [yolo] becomes an object detector Vision \
            reads directly: a Core ML pipeline of the network, the box decoding as layers, and non-maximum suppression, with the outputs \
            `confidence` (one row per box kept, a column per class label) and `coordinates` (centre x, centre y, width, \
            height, fractions of the image), and the optional inputs `iouThreshold` and `confidenceThreshold`. \
            --class-labels names the detector's classes (default: their numbers). The input is `image`, an RGB image scaled \
            by 1/255 as Darknet feeds it (other --image-scale and biases if given). The two files may come in either order: \
            they are told apart by content.
            """,
        examples: [
            ("A YOLOv2 network as an object detector Vision reads",
             "coreml-convert darknet yolo.cfg yolo.weights --confidence-threshold 0.3 -o YOLO.mlmodel"),
            ("Only the network, its raw output grid", "coreml-convert darknet yolo.cfg yolo.weights --region-output grid -o Grid.mlmodel"),
        ])
    static let options = Options {
        Positional("config", valueName: "network.cfg", help: "The network definition.")
        Positional("weights", valueName: "network.weights", help: "Its trained weights.")
        ConversionFlags.outputOptions()
        ConversionFlags.imageOptions
        ConversionFlags.labelAndMetadataOptions
        ConversionFlags.detectorOptions
        Option("region-output", valueName: "form", default: "detector", help: """
            What the final [region] or the [yolo] layers become: detector (the pipeline Vision reads), rows (the decoded boxes and \
            class confidences of every anchor, raw_coordinates and raw_confidence, without suppression), grid (the \
            raw output of the last convolution, or of each [yolo] head's).
            """)
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        var options = try ConversionFlags.options(from: arguments)
        options.detectionThresholds = try ConversionFlags.detectionThresholds(arguments)
        ConversionFlags.applyDetectorFlags(arguments, to: &options)
        let region: RegionOutput = try arguments.value("region-output") { text in
            switch text {
            case "detector": .detector
            case "rows": .rows
            case "grid": .grid
            default: throw UsageError("takes detector, rows or grid, not '\(text)'")
            }
        }
        var (config, weights) = (try ModelFiles.kind(of: try arguments.string("config")), try ModelFiles.kind(of: try arguments.string("weights")))
        if config.format == .darknetWeights, weights.format == .darknetConfig { swap(&config, &weights) }
        let both = Frontend.darknet.formats.union(Frontend.darknetWeights.formats)
        try config.check(expected: Frontend.darknet.formats, what: Frontend.darknet.name, sameProgram: both)
        try weights.check(expected: Frontend.darknetWeights.formats, what: Frontend.darknetWeights.name, sameProgram: both)
        try convert(to: output, inputs: [config.path, weights.path] + ConversionFlags.inputFiles(arguments),
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try DarknetConverter.convert(config: config.path, weights: weights.path, options: options, region: region), [])
        }
    }
}
