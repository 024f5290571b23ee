import CLI
import CoreMLBackend
import Inspection
import ModelFormat

/// `convert`: source models in, Core ML `.mlmodel` out.
enum ConvertCommand: Command {
    static let configuration = CommandConfiguration(
        name: "convert", abstract: "Convert neural-network models to Core ML (.mlmodel).",
        subcommands: [CaffeCommand.self, TensorFlowCommand.self, KerasCommand.self, SampleCommand.self])
}

/// `convert sample`: writes the classifier built in code by `SampleModel`.
enum SampleCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sample", abstract: "Write the built-in sample classifier (227x227 BGR image in, 8 age labels out).",
        discussion: "The model is built in code with generated weights; it exercises the whole writer and is the subject of the README's first command.")
    static let options = Options {
        Option("output", short: "o", valueName: "path", default: "Sample.mlmodel", help: "Where to write the model.")
    }

    static func run(_ arguments: ParsedArguments) throws {
        try write(SampleModel.classifier(), to: try arguments.string("output"))
    }
}

/// Writes `model` to `path` and prints the summary of the file: read back
/// from the file (so it shows what is in the file, not what was meant to
/// be) while the file goes to disk.
func write(_ model: Model, to path: String) throws {
    var summary = ""
    try CoreMLWriter.write(model, to: path) { written in
        let file = try CoreMLReader.read(from: written, structureOnly: true)
        summary = SummaryText.render(file.model, format: "Core ML model, specification version \(file.specificationVersion)")
    }
    print("Wrote \(path)")
    print(summary, terminator: "")
}
