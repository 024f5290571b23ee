import CLI
import FileIO
import Foundation
import Inspection
import ModelFiles
import Naming

/// `inspect`: what a model takes, what it gives, which layers, how big.
enum InspectCommand: Command {
    static let configuration = CommandConfiguration(
        name: "coreml-inspect", abstract: "Summarize models: inputs, outputs, preprocessing, labels, layers, size.",
        discussion: """
            Reads Core ML models (.mlmodel); Caffe deploy definitions with their weights \
            (deploy.prototxt W.caffemodel, or --weights W.caffemodel[.h5]) or alone (structure and shapes, no values); \
            Caffe weights files on their own (layers and blob shapes); TensorFlow frozen graphs (.pb, .pbtxt), \
            Keras .h5 models, ONNX models (.onnx) and Darknet networks (N.cfg [N.weights]), as convert would convert them without options. The format is recognised from the \
            content, never the name. For a .mlmodel or a weights file, the summary, --layers, --json and --graph \
            never read weight values, so large files are fast; --weight-stats reads them. A deploy prototxt is converted \
            as convert caffe does (BatchNorm and Scale folded, Dropout removed). Several files: one section each, or \
            a JSON array. A Core ML file's summary says which systems load it (its specification version) and which \
            layers need that version.
            """,
        versionDetails: """
            reads Core ML .mlmodel files (neural networks, any specification version), Caffe deploy definitions and \
            weights, TensorFlow frozen graphs, Keras .h5, ONNX .onnx, Darknet .cfg with or without .weights
            """,
        examples: [
            Example("What a model takes and gives, and the systems it loads on", "coreml-inspect AgeNet.mlmodel"),
            Example("A Caffe model before converting it, every layer listed", "coreml-inspect deploy_age.prototxt age_net.caffemodel --layers"),
            Example("Every weight tensor's statistics, as JSON", "coreml-inspect AgeNet.mlmodel --weight-stats --json"),
        ])
    static let options = Options {
        Positional("file", valueName: "file", repeatable: true,
                   help: "Model files to summarize: .mlmodel, deploy.prototxt [W.caffemodel[.h5]], .caffemodel, .caffemodel.h5, .pb, .pbtxt, Keras .h5, .onnx, N.cfg [N.weights].")
        Flag("layers", help: "Also list every layer: name, type, inputs -> outputs, output shape, parameters, attributes.")
        Flag("weight-stats", otherSpellings: ["weight-statistics", "weight-table", "tensors"],
             help: "Also list every weight tensor: shape, precision, min, max, mean, std, NaN and Inf counts (reads the weights).")
        Option("weights", valueName: "W.caffemodel", repeatable: true, formerSpellings: ["weights-file"],
               help: "The weights (.caffemodel or .caffemodel.h5) of a Caffe deploy prototxt among the files, as the Caffe tools "
                   + "spell it; the same as giving the file right after the prototxt.")
        Flag("json", help: "Print everything as JSON instead of text (schema: README.md, \"inspect --json\").")
        Option("graph", valueName: "format", help: "Print the graph instead: dot (Graphviz DOT) or svg (rendered by Graphviz's dot).")
        Option("graph-output", valueName: "file", help: "Write the --graph output to this file; the summary still goes to stdout.")
        Option("graph-timeout", valueName: "seconds", default: "60", help: "Stop Graphviz's dot after this long (--graph svg).")
    }

    static func run(_ arguments: ParsedArguments) throws {
        let graph = arguments.optionalString("graph")
        let graphOutput = arguments.optionalString("graph-output")
        let json = arguments.flag("json"), layers = arguments.flag("layers"), weights = arguments.flag("weight-stats")
        if let graph, graph != "dot" && graph != "svg" { throw UsageError("--graph takes dot or svg, not '\(graph)'") }
        if graphOutput != nil && graph == nil { throw UsageError("--graph-output needs --graph dot or --graph svg") }
        let graphTimeout = try arguments.double("graph-timeout")
        guard graphTimeout > 0, graphTimeout <= 86_400 else { throw UsageError("--graph-timeout takes a number of seconds from 0 to 86400") }
        if graph != nil && graphOutput == nil && (json || layers || weights) {
            throw UsageError("--graph prints only the graph; add --graph-output FILE to print the \(json ? "JSON" : "tables") too")
        }
        let files = arguments.strings("file"), weightsFiles = arguments.strings("weights")
        if let graphOutput { try AtomicFile.checkTarget(graphOutput, inputs: files + weightsFiles) }
        let requests = try ModelFiles.requests(files: files, weightsFiles: weightsFiles)
        if graph != nil && requests.count != 1 { throw UsageError("--graph takes one model, got \(requests.count)") }

        let style = TextStyle(color: Terminal.useColor(for: .stdout))
        var documents: [JSON] = []
        for (index, request) in requests.enumerated() {
            let inspected = try ModelFiles.load(request, loadWeights: weights)
            if let graph {
                let text = try GraphOutput.render(inspected, format: graph, timeout: graphTimeout)
                guard let graphOutput else {
                    print(text, terminator: "")
                    return
                }
                try GraphOutput.write(text, to: graphOutput, inputs: files + weightsFiles)
            }
            if json {
                documents.append(InspectionJSON.document(inspected, weightStatistics: weights))
                continue
            }
            if requests.count > 1 { print((index > 0 ? "\n" : "") + style.heading("== \(TextEscaping.line(inspected.path))")) }
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
    static func render(_ inspected: InspectedModel, format: String, timeout: Double) throws -> String {
        let dot = try GraphDot.render(inspected)
        let layers = switch inspected.content {
        case .network(let model): model.nodes.count
        case .weightsOnly(let file): file.layers.count
        }
        return format == "svg" ? try svg(dot, layers: layers, timeout: timeout) : dot
    }

    /// Renders DOT through Graphviz's `dot -Tsvg` (text in, SVG out: no
    /// temporary files), killed after `timeout` seconds.
    static func svg(_ dot: String, layers: Int, timeout: Double) throws -> String {
        guard let program = executable(named: "dot") else {
            throw InspectError("--graph svg needs Graphviz's dot program, which is not on PATH "
                               + "(Debian: apt-get install graphviz); --graph dot writes the DOT text instead")
        }
        let result: ChildProcess.Result
        do {
            result = try ChildProcess.run(program, arguments: ["-Tsvg"], input: Array(dot.utf8), timeout: timeout)
        } catch .timedOut {
            throw InspectError("Graphviz's dot took over \(seconds(timeout)) s to lay out \(layers) layers and was stopped; "
                               + "allow it longer with --graph-timeout, or write the DOT text with --graph dot and lay it out "
                               + "yourself (sfdp -Tsvg is faster on large graphs)")
        } catch .tooMuchOutput {
            throw InspectError("Graphviz's dot (\(program)) wrote more than 1 GB of SVG and was stopped")
        } catch .system(let code) {
            throw InspectError("cannot run Graphviz's dot (\(program)): \(String(cString: strerror(code)))")
        }
        guard result.status == 0 else {
            let message = String(decoding: result.errors, as: UTF8.self)
            let detail = message.split(separator: "\n").first.map { ": \($0)" } ?? ""
            throw InspectError("Graphviz's dot (\(program)) failed with status \(result.status)\(detail)")
        }
        return String(decoding: result.output, as: UTF8.self)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func executable(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileSystem.isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// Writes the graph atomically; never over one of `inputs`, the files inspected.
    static func write(_ text: String, to path: String, inputs: [String]) throws {
        try AtomicFile.write(Array(text.utf8), to: path, inputs: inputs)
    }
}

/// A failure of `inspect` itself (Graphviz): one line.
struct InspectError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
