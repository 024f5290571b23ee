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
            size needs nothing (it is 1); other symbolic sizes need --input-shape name=1,3,224,224. External data files \
            (models over 2 GB) are read from the model's folder and never outside it. Feature names come from the \
            graph's input and output names, characters other than letters, digits and '_' made '_'. An op the \
            converter cannot map is reported with every other one in one error: op type, count and node names.
            """,
        examples: [
            Example("A torchvision classifier, app-ready: normalized, labelled, probabilities",
                    "coreml-convert onnx resnet18.onnx --image-input input --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 "
                        + "--class-labels labels.txt --add-softmax -o ResNet18.mlmodel"),
            Example("A model exported with symbolic sizes: give them, batch first",
                    "coreml-convert onnx model.onnx --input-shape input=1,3,32,32 --image-input input -o Model.mlmodel"),
        ])
    static let options = Options(ConversionFlags.modelFileOptions("model.onnx", "The ONNX model.", layout: "1,C,H,W")
                                 + ConversionFlags.normalizationOptions)

    static func run(_ arguments: ParsedArguments) throws {
        try ConversionFlags.convertModelFile(arguments, .onnx, featureName: ONNXConverter.featureName) { source, options, shapes in
            try ONNXConverter.convert(model: source, inputs: shapes, options: options)
        }
    }
}
