import CLI
import FileIO
import Foundation
import Inspection
import ModelFiles
import Naming

/// `coreml-convert model.onnx -o M.mlmodel`: when the first argument is
/// not a subcommand but an existing file, its content (never its name)
/// picks the subcommand, which then runs with the same arguments; a note
/// on stderr shows the explicit form. Only bytes are looked at: nothing in
/// a file is executed or unpickled.
enum InferredSubcommand {
    /// What to do with the command line.
    enum Resolution: Equatable {
        /// Run these arguments (unchanged, or with the inferred subcommand first).
        case run([String], note: String?)
        /// Refuse with this outcome (a PyTorch file, an unknown or ambiguous one).
        case refuse(Outcome)
    }

    static func resolve(_ arguments: [String]) -> Resolution {
        let names = ConvertCommand.configuration.subcommands.map { $0.configuration.name }
        guard let first = arguments.first, !names.contains(first), first != "help", !first.hasPrefix("-") else {
            return .run(arguments, note: nil)
        }
        let list = names.joined(separator: ", ")
        switch FileSystem.kind(of: first) {
        case .regularFile: break
        case nil where !first.contains("/") && !first.contains("."):
            return .run(arguments, note: nil)  // a word: the parser's "unknown subcommand", with its did-you-mean
        default:
            // A path that is missing, a folder or a FIFO: the reader's one located error, as after a subcommand.
            do { _ = try MappedFile(path: first) } catch { return .refuse(.failure(message: "\(error)")) }
            return .run(arguments, note: nil)
        }
        let hint = HelpFormatter.hint(path: [ConvertCommand.configuration.name])
        if (try? ModelFiles.isPyTorch(first)) == true {
            return .refuse(.failure(message: "\(first): is a PyTorch model; \(FormatDetection.pyTorchAdvice)"))
        }
        let format: DetectedFormat
        do {
            format = try ModelFiles.detect(first)
        } catch {
            return .refuse(.usageError(message: "\(error); name its format with a subcommand: \(list)", usage: hint))
        }
        let second = arguments.dropFirst().first.flatMap { !$0.hasPrefix("-") && FileSystem.kind(of: $0) == .regularFile ? $0 : nil }
        let definition = second.flatMap { path in (try? ModelFiles.detect(path)).map { Frontend.claiming(path, format: $0) } }
        var rest = Array(arguments)
        var frontend = Frontend.claiming(first, format: format)
        if format == .hdf5, definition == .caffe { frontend = .caffeWeights }  // Caffe's HDF5 weights beside their prototxt
        if frontend.isWeights {
            guard let definition, !definition.isWeights, definition.subcommand == frontend.subcommand else {
                return .refuse(.usageError(
                    message: "\(first): is \(format.noun), weights without their network definition: "
                        + "give the definition too, or name the format with a subcommand: \(list)", usage: hint))
            }
            rest.swapAt(0, 1)  // caffe and darknet take the definition first
        }
        let subcommand = frontend.subcommand
        let quiet = arguments.prefix { $0 != "--" }.contains { $0 == "--quiet" || $0 == "-q" || $0 == "--json" }
        let files = rest.prefix(2).prefix { !$0.hasPrefix("-") }.joined(separator: " ")
        let note = "note: \(first) is \(format.noun): running coreml-convert \(subcommand) \(files) ..."
        return .run([subcommand] + rest, note: quiet ? nil : note)
    }

    /// Parses, runs and writes, as `Command.main`, with the subcommand inferred when it is left out.
    static func main(arguments: [String] = ProgramArguments.current()) -> Int32 {
        switch resolve(arguments) {
        case .run(let arguments, let note):
            if let note { StandardStreams.printError((TextEscaping.line(note) + "\n")) }
            return ConvertCommand.main(arguments: arguments)
        case .refuse(let outcome):
            return outcome.write()
        }
    }
}
