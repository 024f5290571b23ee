import CLI
import CoreMLBackend
import Inspection

/// `inspect`: what a model takes, what it gives, which layers, how big.
enum InspectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "inspect", abstract: "Summarize models: inputs, outputs, preprocessing, labels, layers, size.",
        discussion: "Reads Core ML models (.mlmodel). Weight values are never loaded, so large files are fast.")
    static let options = Options {
        Positional("file", valueName: "file", repeatable: true, help: "Model files to summarize.")
        Flag("layers", help: "Also list every layer: name, type, inputs -> outputs, output shape, parameters.")
    }

    static func run(_ arguments: ParsedArguments) throws {
        let paths = arguments.strings("file")
        for (index, path) in paths.enumerated() {
            let file = try CoreMLReader.read(from: path, structureOnly: true)
            if paths.count > 1 { print((index > 0 ? "\n" : "") + "== \(path)") }
            print(SummaryText.render(file.model, format: "Core ML model, specification version \(file.specificationVersion)"),
                  terminator: "")
            if arguments.flag("layers") {
                print()
                print(LayerTable.render(file.model), terminator: "")
            }
        }
    }
}
