import CLI
import Foundation
import Inspection

/// `inspect`: what a model takes, what it gives, which layers, how big.
enum InspectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "inspect", abstract: "Summarize models: inputs, outputs, preprocessing, labels, layers, size.",
        discussion: """
            Reads Core ML models (.mlmodel), Caffe deploy definitions with their weights \
            (deploy.prototxt --weights W.caffemodel or W.caffemodel.h5) and Caffe weights files on their own \
            (layers and blob shapes); the format is recognised from the content. For a .mlmodel or a weights \
            file, the summary, --layers, --json and --graph never read weight values, so large files are fast; \
            --weights reads them. A deploy prototxt is converted with its weights, as convert caffe does \
            (BatchNorm and Scale folded, Dropout removed). Several files: one section each, or a JSON array.
            """)
    static let options = Options {
        Positional("file", valueName: "file", repeatable: true, help: "Model files to summarize.")
        Flag("layers", help: "Also list every layer: name, type, inputs -> outputs, output shape, parameters, attributes.")
        Flag("weights", help: "Also list every weight tensor: shape, precision, min, max, mean, std, NaN and Inf counts (reads the weights).")
        Option("weights-file", valueName: "file", repeatable: true,
               help: "The weights of a Caffe deploy prototxt (.caffemodel or .caffemodel.h5); `--weights FILE` right after the prototxt says the same.")
        Flag("json", help: "Print everything as JSON instead of text (schema: README.md, \"inspect --json\").")
        Option("graph", valueName: "format", help: "Print the graph instead: dot (Graphviz DOT) or svg (rendered by Graphviz's dot).")
        Option("graph-output", valueName: "file", help: "Write the --graph output to this file; the summary still goes to stdout.")
    }

    static func run(_ arguments: ParsedArguments) throws {
        let graph = arguments.optionalString("graph")
        let graphOutput = arguments.optionalString("graph-output")
        let json = arguments.flag("json"), layers = arguments.flag("layers"), weights = arguments.flag("weights")
        if let graph, graph != "dot" && graph != "svg" { throw UsageError("--graph takes dot or svg, not '\(graph)'") }
        if graphOutput != nil && graph == nil { throw UsageError("--graph-output needs --graph dot or --graph svg") }
        if graph != nil && graphOutput == nil && (json || layers || weights) {
            throw UsageError("--graph prints only the graph; add --graph-output FILE to print the \(json ? "JSON" : "tables") too")
        }
        let requests = try ModelLoader.requests(files: arguments.strings("file"), weightsFiles: arguments.strings("weights-file"))
        if graph != nil && requests.count != 1 { throw UsageError("--graph takes one model, got \(requests.count)") }

        let style = TextStyle(color: Terminal.useColor(for: .stdout))
        var documents: [JSON] = []
        for (index, request) in requests.enumerated() {
            let inspected = try ModelLoader.load(request, loadWeights: weights)
            if let graph {
                let text = try GraphOutput.render(inspected, format: graph)
                guard let graphOutput else {
                    print(text, terminator: "")
                    return
                }
                try GraphOutput.write(text, to: graphOutput)
            }
            if json {
                documents.append(InspectionJSON.document(inspected, weightStatistics: weights))
                continue
            }
            if requests.count > 1 { print((index > 0 ? "\n" : "") + style.heading("== \(inspected.path)")) }
            print(SummaryText.render(inspected, style: style), terminator: "")
            if layers {
                print()
                print(LayerTable.render(inspected, style: style), terminator: "")
            }
            if weights {
                print()
                print(WeightTable.render(inspected, style: style), terminator: "")
            }
        }
        if json {
            print((documents.count == 1 ? documents[0] : .array(documents)).rendered(), terminator: "")
        }
    }
}

/// `--graph dot` and `--graph svg`.
enum GraphOutput {
    static func render(_ inspected: InspectedModel, format: String) throws -> String {
        let dot = try GraphDot.render(inspected)
        return format == "svg" ? try svg(dot) : dot
    }

    /// Renders DOT through Graphviz's `dot -Tsvg`.
    static func svg(_ dot: String) throws -> String {
        guard let program = executable(named: "dot") else {
            throw InspectError("--graph svg needs Graphviz's dot program, which is not on PATH "
                               + "(Debian: apt-get install graphviz); --graph dot writes the DOT text instead")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("graph.dot"), output = folder.appendingPathComponent("graph.svg")
        try dot.write(to: input, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-Tsvg", input.path, "-o", output.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let svg = try? String(contentsOf: output, encoding: .utf8) else {
            let detail = message.split(separator: "\n").first.map { ": \($0)" } ?? ""
            throw InspectError("Graphviz's dot (\(program)) failed with status \(process.terminationStatus)\(detail)")
        }
        return svg
    }

    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    static func write(_ text: String, to path: String) throws {
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw InspectError("\(path): cannot write the graph: \(errorLine(for: error))")
        }
    }
}
