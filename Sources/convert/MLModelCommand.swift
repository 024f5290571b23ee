import CLI
import CoreMLBackend
import ModelFiles

/// `convert mlmodel`: an existing `.mlmodel` written again, typically with
/// smaller weights (`--precision float16`, `--quantize-weights`).
enum MLModelCommand: Command {
    static let configuration = CommandConfiguration(
        name: "mlmodel", abstract: "Write a Core ML model again, with float16 or quantized weights.",
        discussion: """
            Reads a neural network or neural network classifier .mlmodel (float32, float16 or quantized weights) and \
            writes it with the weights stored as --precision or --quantize-weights say; without either, as they were. \
            Quantized weights are expanded to float32 when read: quantizing a quantized model again starts from those \
            values. The output must be another file.
            """,
        examples: [
            ("float16 weights: half the size", "coreml-convert mlmodel AgeNet.mlmodel --precision float16 -o AgeNet16.mlmodel"),
            ("4-bit weights by k-means, and how far its outputs move",
             "coreml-convert mlmodel AgeNet.mlmodel --quantize-weights 4 --quantization kmeans-lut --probe face.png -o AgeNet4.mlmodel"),
        ])
    static let options = Options {
        Positional("model", valueName: "Model.mlmodel", help: "The Core ML model to write again.")
        ConversionFlags.outputOptions()
        ConversionFlags.deploymentTargetOption
    }

    static func run(_ arguments: ParsedArguments) throws {
        let output = try ConversionFlags.output(arguments)  // usage mistakes before any file is read
        let source = try arguments.string("model")
        try Frontend.coreML.require(source)
        try convert(to: output, inputs: [source], minimumSpecificationVersion: try ConversionFlags.minimumSpecificationVersion(arguments)) {
            (try ValidatedModel.read(path: source), [])
        }
    }
}
