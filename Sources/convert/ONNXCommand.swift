import CLI
import Conversion
import ModelFiles
import ONNXFrontend

/// `convert onnx`: an ONNX model (PyTorch's torch.onnx.export) -> .mlmodel.
enum ONNXCommand: Command {
    static let configuration = CommandConfiguration(
        name: "onnx", abstract: "Convert an ONNX model (.onnx, as PyTorch exports it) to Core ML.",
        discussion: """
            Reads opsets 9 to 21 with each opset's semantics (Softmax's axis, attributes that became inputs). \
            Initializers are constants and the shape arithmetic around Reshape is folded, so a symbolic batch \
            size needs nothing (it is 1); other symbolic sizes need --input name=1,3,224,224. External data files \
            (models over 2 GB) are read from the model's folder and never outside it. Feature names come from the \
            graph's input and output names, characters other than letters, digits and '_' made '_'. An op the \
            converter cannot map is reported with every other one in one error: op type, count and node names.
            """)
    static let options = Options {
        Positional("model", valueName: "model.onnx", help: "The ONNX model.")
        ConversionFlags.outputOptions()
        ConversionFlags.inputShapeOptions
        ConversionFlags.imageOptions
        ConversionFlags.labelAndMetadataOptions
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        var options = try ConversionFlags.options(from: arguments)
        options.imageInputNames = options.imageInputNames.map(ONNXConverter.featureName)
        let inputs = try ConversionFlags.inputShapes(arguments).map { ONNXConverter.InputShape(name: $0.name, shape: $0.shape) }
        let model = try arguments.string("model")
        try Frontend.onnx.require(model)
        try convert(to: output, inputs: [model] + ConversionFlags.inputFiles(arguments),
                    minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try ONNXConverter.convert(model: model, inputs: inputs, options: options), [])
        }
    }
}
