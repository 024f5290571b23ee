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
            Reads Core ML models (.mlmodel files and ML Program .mlpackage folders); Caffe deploy definitions with their weights \
            (deploy.prototxt W.caffemodel, or --weights W.caffemodel[.h5]) or alone (structure and shapes, no values); \
            Caffe weights files on their own (layers and blob shapes); TensorFlow frozen graphs (.pb, .pbtxt), \
            Keras .h5 models, ONNX models (.onnx), TFLite models (.tflite; float, float16 or quantized) and Darknet networks (N.cfg [N.weights]), as convert would convert them without options; a model that parses \
            but does not convert is shown as the file states it, with a Cannot convert: list of what stands in the way \
            (exit 0). The format is recognised from the content, never the name. For a .mlmodel or a weights file, the summary, --layers, --json and --graph \
            never read weight values, so large files are fast; --weight-stats reads them. A deploy prototxt is converted \
            as convert caffe does (BatchNorm and Scale folded, Dropout removed). Several files: one section each, or \
            a JSON array. A Core ML file's summary says which systems load it (its specification version) and which \
            layers need that version.
            """,
        versionDetails: """
            reads Core ML .mlmodel files (neural networks, any specification version), Caffe deploy definitions and \
            weights, TensorFlow frozen graphs, Keras .h5, ONNX .onnx, TFLite .tflite, Darknet .cfg with or without .weights
            """,
        examples: [
            ("What a model takes and gives, and the systems it loads on", "coreml-inspect AgeNet.mlmodel"),
            ("A Caffe model before converting it, every layer listed", "coreml-inspect deploy_age.prototxt age_net.caffemodel --layers"),
            ("Every weight tensor's statistics, as JSON", "coreml-inspect AgeNet.mlmodel --weight-stats --json"),
            ("The graph as a picture next to the model (AgeNet.svg)", "coreml-inspect AgeNet.mlmodel --graph svg"),
        ])
    static let options = Options {
        Positional("file", valueName: "file", repeatable: true,
                   help: "Model files to summarize: .mlmodel, deploy.prototxt [W.caffemodel[.h5]], .caffemodel, .caffemodel.h5, .pb, .pbtxt, Keras .h5, .onnx, .tflite, N.cfg [N.weights].")
        Flag("layers", help: "Also list every layer: name, type, inputs -> outputs, output shape, parameters, attributes.")
        Flag("weight-stats", otherSpellings: ["weight-statistics", "weight-table", "tensors"],
             help: "Also list every weight tensor: shape, precision, min, max, mean, std, NaN and Inf counts (reads the weights).")
        Option("weights", valueName: "W.caffemodel", repeatable: true, formerSpellings: ["weights-file"],
               help: "The weights (.caffemodel or .caffemodel.h5) of a Caffe deploy prototxt among the files, as the Caffe tools "
                   + "spell it; the same as giving the file right after the prototxt.")
        Flag("json", help: "Print everything as JSON instead of text (schema: README.md, \"inspect --json\").")
        Option("graph", valueName: "format", help: "Also draw the graph, coloured by layer kind, detectors as their pipeline: dot (Graphviz DOT), svg or png (laid out by Graphviz's dot), written next to each model (M.svg for M.mlmodel).")
        Option("graph-output", valueName: "file", help: "Write the --graph picture to this file instead (one model); - prints it alone on stdout (png: not to a terminal).")
        Option("graph-timeout", valueName: "seconds", default: "60", help: "Stop Graphviz's dot after this long (--graph svg or png).")
    }

    static func run(_ arguments: ParsedArguments) throws {
        let graph = arguments.optionalString("graph")
        let graphOutput = arguments.optionalString("graph-output")
        let json = arguments.flag("json"), layers = arguments.flag("layers"), weights = arguments.flag("weight-stats")
        if let graph, !GraphOutput.formats.contains(graph) { throw UsageError("--graph takes dot, svg or png, not '\(graph)'") }
        if graphOutput != nil && graph == nil { throw UsageError("--graph-output needs --graph dot, svg or png") }
        let graphTimeout = try arguments.double("graph-timeout")
        guard graphTimeout > 0, graphTimeout <= 86_400 else { throw UsageError("--graph-timeout takes a number of seconds from 0 to 86400") }
        if graphOutput == "" { throw UsageError("--graph-output takes a file name, or - for stdout") }
        let graphToStdout = graphOutput == "-"
        if graphToStdout && (json || layers || weights) {
            throw UsageError("--graph-output - prints only the graph; give a file to print the \(json ? "JSON" : "tables") too")
        }
        if graphToStdout && graph == "png" && Terminal.isInteractive(.stdout) {
            throw UsageError("--graph png --graph-output - would write binary PNG to the terminal; "
                             + "redirect stdout to a file or a program, or leave out --graph-output to write it next to the model")
        }
        let files = arguments.strings("file"), weightsFiles = arguments.strings("weights")
        let requests = try ModelFiles.requests(files: files, weightsFiles: weightsFiles)
        if graphOutput != nil && requests.count != 1 {
            throw UsageError("--graph-output names the picture of one model, not \(requests.count); "
                             + "leave it out to write each next to its model")
        }
        // Where each picture goes, checked before any is drawn: never over an input, never two in one file.
        var pictures: [String?] = Array(repeating: nil, count: requests.count)
        if let graph, !graphToStdout {
            for (index, request) in requests.enumerated() {
                let path = graphOutput ?? GraphOutput.defaultPath(for: request, format: graph)
                try AtomicFile.checkTarget(path, inputs: files + weightsFiles)
                if let other = pictures.firstIndex(of: path) {
                    throw InspectError("\(path): would hold the graphs of both \(requests[other].path) and \(request.path); "
                                       + "draw them one at a time with --graph-output")
                }
                pictures[index] = path
            }
        }
        let style = TextStyle(color: Terminal.useColor(for: .stdout))
        var documents: [JSON] = []
        for (index, request) in requests.enumerated() {
            let inspected = try ModelFiles.load(request, loadWeights: weights)
            if let graph {
                let picture = try GraphOutput.render(inspected, format: graph, timeout: graphTimeout)
                guard let path = pictures[index] else {
                    try GraphOutput.print(picture)
                    return
                }
                try GraphOutput.write(picture, to: path, inputs: files + weightsFiles)
            }
            if json {
                documents.append(InspectionJSON.document(inspected, weightStatistics: weights, naming: \.flag))
                continue
            }
            if requests.count > 1 { print((index > 0 ? "\n" : "") + style.heading("== \(TextEscaping.line(inspected.path))")) }
            print(SummaryText.render(inspected, style: style, naming: \.flag), terminator: "")
            if layers {
                print()
                print(LayerTable.render(inspected, style: style), terminator: "")
            }
            if weights {
                print()
                print(WeightTable.render(inspected, style: style), terminator: "")
            }
            if let path = pictures[index] { print("Wrote \(TextEscaping.line(path))") }
        }
        if json {
            print((documents.count == 1 ? documents[0] : .array(documents)).rendered(), terminator: "")
        }
    }
}
