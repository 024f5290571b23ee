import CLI
import CoreMLBackend
import Conversion
import ModelFiles
import TensorFlowFrontend

/// `convert tensorflow`: frozen GraphDef -> .mlmodel, with the options of
/// the old tfcoreml converter.
enum TensorFlowCommand: Command {
    static let configuration = CommandConfiguration(
        name: "tensorflow", abstract: "Convert a frozen TensorFlow graph (.pb or .pbtxt) to Core ML.",
        discussion: """
            Options follow tfcoreml.convert: input_name_shape_dict -> --input-shape, output_feature_names -> \
            --output-feature-name, \
            image_input_names -> --image-input, red_bias / image_scale / class_labels likewise. Tensor names may be \
            given with or without ':0'. Core ML feature names come from tensor names: ':0' is dropped and characters \
            other than letters, digits and '_' become '_' (input:0 -> input, a/b:1 -> a_b_1); --image-input takes \
            the graph's name. A YOLOv2 graph (its passthrough as SpaceToDepth) becomes an object detector Vision reads with \
            --yolo-anchors: its output decoded as Darknet's [region] does and suppressed (see coreml-convert darknet --help; \
            --class-labels names the classes).
            """,
        examples: [
            ("A frozen classifier: its input's size, its output, image input and labels",
             "coreml-convert tensorflow graph.pb --input-shape input:0=1,32,32,3 --output-feature-name Identity:0 "
                 + "--image-input input:0 --image-scale 1/255 --class-labels labels.txt -o Classifier.mlmodel"),
            ("Its outputs as the graph gives them, float16 weights",
             "coreml-convert tensorflow graph.pb --input-shape input:0=1,32,32,3 --image-input input:0 --precision float16 "
                 + "-o Graph.mlmodel"),
        ])
    static let options = Options {
        Positional("graph", valueName: "frozen.pb", help: "The frozen GraphDef (binary .pb, or text .pbtxt).")
        ConversionFlags.outputOptions()
        ConversionFlags.inputShapeOptions(layout: "1,H,W,C")
        Option("output-feature-name", valueName: "tensor", repeatable: true, otherSpellings: ["output-tensor"],
               help: "A tensor to expose as an output of the model (default: the graph's sinks).")
        ConversionFlags.imageOptions
        ConversionFlags.normalizationOptions
        ConversionFlags.labelAndMetadataOptions
        Option("yolo-anchors", valueName: "w,h,...",
               help: "The anchors (width, height pairs in grid cells, as Darknet's cfg lists them) of a YOLOv2 output to decode into a detector.")
        ConversionFlags.detectorOptions
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        var options = try ConversionFlags.options(from: arguments)
        options.normalization = try ConversionFlags.normalization(arguments)
        try UsageError.checkDistinct(options.imageInputNames, option: "image-input", key: TensorFlowConverter.featureName)
        options.imageInputNames = options.imageInputNames.map(TensorFlowConverter.featureName)
        options.detectionThresholds = try ConversionFlags.detectionThresholds(arguments)
        ConversionFlags.applyDetectorFlags(arguments, to: &options)
        options.yoloAnchors = try arguments.optionalValue("yolo-anchors") { text in
            let values = text.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard values.count >= 2, values.count % 2 == 0, values.allSatisfy({ $0 != nil && $0!.isFinite && $0! > 0 }) else {
                throw UsageError("takes pairs of positive widths and heights (w,h,w,h,...)")
            }
            return values.map { $0! }
        }
        let inputs = try ConversionFlags.inputShapes(arguments, key: { $0.hasSuffix(":0") ? String($0.dropLast(2)) : $0 }).map { TensorFlowConverter.InputShape(name: $0.name, shape: $0.shape) }
        let graph = try arguments.string("graph")
        try Frontend.tensorflow.require(graph)
        try convert(to: output, inputs: [graph] + ConversionFlags.inputFiles(arguments),
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try TensorFlowConverter.convert(graph: graph, inputs: inputs, outputs: arguments.strings("output-feature-name"), options: options), ConversionFlags.normalizationNotes(options))
        }
    }
}
