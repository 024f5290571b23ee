import CLI
import CoreMLBackend
import FileIO
import FrontendSupport
import Inspection
import ModelFormat
import Naming

/// `convert`: source models in, Core ML `.mlmodel` out.
enum ConvertCommand: Command {
    static let configuration = CommandConfiguration(
        name: "convert", abstract: "Convert neural-network models to Core ML (.mlmodel).",
        discussion: """
            The model is written to a temporary file next to the output and renamed into place once it is complete \
            and reads back: a failed conversion leaves no file and an existing one as it was. When an existing file \
            is replaced, the new one is synced to disk before the rename, so that not even a power cut leaves a \
            partial model in its place; a new file is left to the system to write back, as cp leaves a copy.
            """,
        subcommands: [CaffeCommand.self, TensorFlowCommand.self, KerasCommand.self, SampleCommand.self])
}

/// `convert sample`: writes the classifier built in code by `SampleModel`.
enum SampleCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sample", abstract: "Write the built-in sample classifier (227x227 BGR image in, 8 age labels out).",
        discussion: "The model is built in code with generated weights; it exercises the whole writer and is the subject of the README's first command.")
    static let options = Options {
        Option("output", short: "o", valueName: "path", default: "Sample.mlmodel", help: ConversionFlags.outputHelp)
    }

    static func run(_ arguments: ParsedArguments) throws {
        try convert(to: try arguments.string("output"), inputs: []) { SampleModel.classifier() }
    }
}

/// Makes the model, writes it to `path` and prints the summary of the file:
/// read back from the file (so it shows what is in the file, not what was
/// meant to be) before it is renamed into place. `inputs`, the files the
/// model is made from, are never replaced: that, and what is at `path`
/// (a device, a FIFO, a folder), is checked before any work is done.
/// The file loads on the oldest OS its layers allow, and not older than
/// `minimumSpecificationVersion` says (`--minimum-deployment-target`).
func convert(to path: String, inputs: [String], minimumSpecificationVersion: Int32 = 1, _ make: () throws -> Model) throws {
    try AtomicFile.checkTarget(path, inputs: inputs)
    let model: Model
    do {
        model = try make()
    } catch let error as ConversionOptionError {
        // An option that does not fit the model: a mistake on the command line.
        throw UsageError(error.message)
    }
    try write(model, to: path, inputs: inputs, minimumSpecificationVersion: minimumSpecificationVersion)
}

private func write(_ model: Model, to path: String, inputs: [String], minimumSpecificationVersion: Int32) throws {
    var summary = ""
    try CoreMLWriter.write(model, to: path, inputs: inputs, minimumSpecificationVersion: minimumSpecificationVersion) { written in
        let file: CoreMLFile
        do {
            file = try CoreMLReader.read(from: written, structureOnly: true)
        } catch {
            // The model was validated before writing: this is the writer's bug.
            let reason = "\(error)".replacingOccurrences(of: written, with: path)
            throw ConversionError("\(path): the written file does not read back, so it was not kept (a bug: please report it): \(reason)")
        }
        summary = SummaryText.render(file.model, format: "Core ML model, specification version \(file.specificationVersion)")
    }
    print("Wrote \(TextEscaping.line(path))")
    print(summary, terminator: "")
}

/// A conversion that failed after the model was made: one line, naming the file.
struct ConversionError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
