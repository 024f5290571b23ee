import Foundation
import CLI
import CodeGeneration
import CoreMLBackend
import FileIO
import Conversion
import Inspection
import ModelFiles
import ModelFormat
import Naming

/// `convert`: source models in, Core ML `.mlmodel` out.
enum ConvertCommand: Command {
    static let configuration = CommandConfiguration(
        name: "coreml-convert", abstract: "Convert neural-network models to Core ML (.mlmodel).",
        discussion: """
            The model is written to a temporary file next to the output and renamed into place once it is complete \
            and reads back: a failed conversion leaves no file and an existing one as it was. When an existing file \
            is replaced, the new one is synced to disk before the rename, so that not even a power cut leaves a \
            partial model in its place; a new file is left to the system to write back, as cp leaves a copy. With \
            --generate-classes the model and its classes are written all or nothing: none is renamed into place before \
            all are complete.
            """,
        subcommands: [CaffeCommand.self, TensorFlowCommand.self, KerasCommand.self, DarknetCommand.self, ONNXCommand.self, TFLiteCommand.self, MLModelCommand.self, SampleCommand.self],
        versionDetails: {
            let versions = DeploymentTarget.neuralNetworkVersions
            return """
                reads Caffe (V1 and current, .caffemodel and HDF5 weights), TensorFlow frozen graphs, Keras .h5, Darknet .cfg + .weights, ONNX (opsets 9 to 21), TFLite .tflite (float, float16 and int8 quantized), Core ML .mlmodel
                writes Core ML .mlmodel files, specification version \(versions.lowerBound) (\(DeploymentTarget.systems(for: versions.lowerBound))) \
                to \(versions.upperBound) (\(DeploymentTarget.systems(for: versions.upperBound))): the oldest the model's layers allow, \
                or --minimum-deployment-target; and ML programs (.mlpackage, --convert-to mlprogram), specification \(DeploymentTarget.firstProgramVersion) \
                (\(DeploymentTarget.systems(for: DeploymentTarget.firstProgramVersion)))
                """
        }(),
        otherUsages: ["<model file> [<weights file>] <options>   (subcommand told by content)"],
        examples: [
            ("The format told by the content: an ONNX classifier taking images",
             "coreml-convert resnet18.onnx --image-input input -o ResNet18.mlmodel"),
            ("A Caffe classifier as Vision reads it: BGR, mean subtracted, labels",
             "coreml-convert caffe deploy_age.prototxt age_net.caffemodel --image-input data --is-bgr --blue-bias -78.4 --green-bias -87.8 --red-bias -114.9 --class-labels age_labels.txt -o AgeNet.mlmodel"),
            ("The same model with float16 weights, half the size",
             "coreml-convert mlmodel AgeNet.mlmodel --precision float16 -o AgeNet16.mlmodel"),
        ])
}

/// `convert sample`: writes the classifier built in code by `SampleModel`.
enum SampleCommand: Command {
    static let configuration = CommandConfiguration(
        name: "sample", abstract: "Write the built-in sample classifier (227x227 BGR image in, 8 age labels out).",
        discussion: "The model is built in code with generated weights; it exercises the whole writer and is the subject of the README's first command.",
        examples: [
            ("Write Sample.mlmodel", "coreml-convert sample"),
            ("And its Swift class, as coreml-generate writes it", "coreml-convert sample -o Sample.mlmodel --generate-classes"),
        ])
    static let options = Options {
        ConversionFlags.outputOptions(default: "Sample.mlmodel")
    }

    static func run(_ arguments: ParsedArguments) throws {
        try convert(to: ConversionFlags.output(arguments), inputs: []) { (SampleModel.classifier(), []) }
    }
}

/// Where and how `convert` reports a written model: the path (checked to
/// be a `.mlmodel` name), and whether to print the text summary, JSON or
/// nothing.
struct OutputRequest {
    enum Report { case text, json, quiet }
    var path: String
    var report: Report
    /// How to store the weights (`--precision`, `--quantize-weights`); nil: as the source does.
    var precision: Precision? = nil
    /// Which of a program's compressed values share a scale or table (`--block-size`, `--group-size`).
    var granularity = CompressionGranularity.perChannel
    /// `--probe` values: the fidelity report's input.
    var probes: [String] = []
    /// `--generate-classes`: the typed classes to write next to the model.
    var classes: SourceLanguage? = nil
    /// Whether to print `AppReadiness` warnings on stderr (the converters
    /// that have --image-input, unless --quiet).
    var warnsIfNotAppReady = false
    /// `--convert-to mlprogram`: an ML Program package computing in this precision instead of a NeuralNetwork file.
    var program: Precision? = nil

    /// The folder the model is written to, where its classes go.
    var folder: String { FileSystem.folder(of: path) }
}

/// Makes the model, writes it to `output.path` and prints the summary of
/// the file: read back from the file (so it shows what is in the file, not
/// what was meant to be) before it is renamed into place. `inputs`, the
/// files the model is made from, are never replaced: that, and what is at
/// the path (a device, a FIFO, a folder), is checked before any work is
/// done. The file loads on the oldest OS its layers allow, and not older
/// than `minimumSpecificationVersion` says (`--minimum-deployment-target`).
/// `make` gives the model and notes for the summary (what the conversion
/// changed that the file does not show: a declared batch).
func convert(to output: OutputRequest, inputs: [String], minimumSpecificationVersion asked: Int32? = nil,
             _ make: () throws -> (model: Model, notes: [(label: String, items: [String])])) throws {
    let compressedVersion = output.precision.flatMap { $0.isQuantized ? MLProgramWriter.compressedSpecificationVersion(for: $0, granularity: output.granularity) : nil }
    try checkDeploymentTarget(asked, program: output.program != nil, compressedVersion: compressedVersion)
    let minimumSpecificationVersion = asked ?? 1
    if output.program != nil {
        try MLProgramWriter.checkTarget(output.path, inputs: inputs)
    } else {
        try AtomicFile.checkTarget(output.path, inputs: inputs)
    }
    if let language = output.classes {
        try ClassFiles.checkTargets(forModelAt: output.path, in: output.folder, language: language, inputs: inputs)
    }
    let model: Model, notes: [(label: String, items: [String])]
    do {
        (model, notes) = try make()
    } catch let error as ConversionOptionError {
        // An option that does not fit the model: a mistake on the command line.
        throw UsageError(error.message.namingOptions(\.flag))
    } catch let error as ImagePreprocessingError {
        throw UsageError(ConversionFlags.message(error))
    }
    try write(model, to: output, inputs: inputs, minimumSpecificationVersion: minimumSpecificationVersion, notes: notes)
    // What keeps the written model from an app's use as it is (after the summary: the last lines a user sees).
    if output.warnsIfNotAppReady && output.report != .quiet {
        for warning in AppReadiness.warnings(for: model, naming: \.flag) {
            StandardStreams.printError("warning: \(TextEscaping.line(warning))\n")
        }
    }
}

/// Refuses a --minimum-deployment-target the kind of model cannot have,
/// as coremltools refuses it: a NeuralNetwork for iOS 15 or later, an ML
/// program before iOS 15 (and, for now, after iOS 18: the writer's opsets
/// are iOS 15's to 18's), a compressed program before the version its
/// compression needs (`compressedVersion`: iOS 16's or iOS 18's forms).
func checkDeploymentTarget(_ asked: Int32?, program: Bool, compressedVersion: Int32? = nil) throws {
    guard let asked else { return }
    let first = DeploymentTarget.firstProgramVersion
    if program, asked < first {
        throw UsageError("--minimum-deployment-target: an ML program (--convert-to mlprogram) loads on \(DeploymentTarget.systems(for: first)) "
                         + "and later, as coremltools requires; name one of those or leave the option out")
    }
    if program, asked > MLProgramWriter.specificationVersions.upperBound {
        throw UsageError("--minimum-deployment-target: --convert-to mlprogram writes the programs of iOS 15 to 18 (specifications 6 to 9, "
                         + "opsets CoreML5 to CoreML8) only for now")
    }
    if program, let compressedVersion, asked < compressedVersion {
        let forms = compressedVersion == MLProgramWriter.compressedSpecificationVersion(for: .quantized(bits: 8, .linear))
            ? "iOS 16's constexpr operations" : "iOS 18's constexpr operations (4-bit linear, 3-bit tables, blocks or groups)"
        throw UsageError("--minimum-deployment-target: a program's compressed weights (--quantize-weights) as asked are \(forms): "
                         + "name \(DeploymentTarget.systems(for: compressedVersion)) or later, or leave the option out")
    }
    if !program, asked > DeploymentTarget.neuralNetworkVersions.upperBound {
        throw UsageError("--minimum-deployment-target: from \(DeploymentTarget.systems(for: first)) on, a model is an ML program "
                         + "(as coremltools requires): add --convert-to mlprogram -o Name.mlpackage, or name an older target")
    }
}

private func write(_ model: Model, to output: OutputRequest, inputs: [String], minimumSpecificationVersion: Int32,
                   notes: [(label: String, items: [String])]) throws {
    let path = output.path
    let compressed = output.precision.map { $0 != .float32 } ?? false
    let probe = compressed && output.report != .quiet ? try FidelityReport.probe(for: model, output.probes) : nil
    var inspected: InspectedModel?
    // The file (or package) as written, before it is renamed into place: the summary shows what is in it.
    let readBack = { (written: String) throws in
        let file: CoreMLFile
        do {
            file = try CoreMLReader.read(from: written, structureOnly: true)
        } catch {
            // The model was validated before writing: this is the writer's bug.
            let reason = "\(error)".replacingOccurrences(of: written, with: path)
            throw ConversionError("\(path): the written file does not read back, so it was not kept (a bug: please report it): \(reason)")
        }
        inspected = InspectedModel(coreMLFile: file, path: path, notes: notes + keptFloat(file.model, output))
    }
    var classFiles: [String] = []
    if let computePrecision = output.program {
        // The classes are written from the complete package before it is renamed into place, and renamed into place
        // right after it: none is in place before all are complete.
        let set = try output.classes.map { try AtomicFileSet(targets: ClassFiles.paths(forModelAt: path, in: output.folder, language: $0), inputs: inputs) }
        do {
            try MLProgramWriter.write(model, to: path, inputs: inputs, computePrecision: computePrecision, compression: output.precision,
                                      granularity: output.granularity,
                                      minimumSpecificationVersion: max(minimumSpecificationVersion, DeploymentTarget.firstProgramVersion)) { written in
                try readBack(written)
                if let language = output.classes, let set {
                    classFiles = try ClassFiles.write(modelAt: path, readingFrom: written, to: output.folder, language: language, in: set)
                }
            }
            try set?.commit()
        } catch {
            set?.discard()
            throw error
        }
    } else if let language = output.classes {
        // The model and its classes, all or nothing: a full disk while writing the classes keeps the old model too.
        let set = try AtomicFileSet(targets: [path] + ClassFiles.paths(forModelAt: path, in: output.folder, language: language),
                                    inputs: inputs)
        do {
            let written = try CoreMLWriter.write(model, to: path, in: set, minimumSpecificationVersion: minimumSpecificationVersion,
                                                 precision: output.precision)
            try readBack(written)
            classFiles = try ClassFiles.write(modelAt: path, readingFrom: written, to: output.folder, language: language, in: set)
            try set.commit()
        } catch {
            set.discard()
            throw error
        }
    } else {
        try CoreMLWriter.write(model, to: path, inputs: inputs, minimumSpecificationVersion: minimumSpecificationVersion,
                               precision: output.precision, beforeCommit: readBack)
    }
    guard let inspected else { return }
    let fidelity = try probe.map { try FidelityReport.measure(float: model, compressed: path, precision: output.precision!, probe: $0) }
    switch output.report {
    case .quiet:
        break
    case .text:
        print("Wrote \(TextEscaping.line(path))" + (output.program.map { " (ML Program computing in \($0.name))" } ?? ""))
        print(SummaryText.render(inspected, featureDescriptions: false), terminator: "")
        if let fidelity { print(fidelity.text, terminator: "") }
        for file in classFiles { print("Wrote \(TextEscaping.line(file))") }
    case .json:
        var document = InspectionJSON.document(inspected, weightStatistics: false)
        if case .object(let members) = document, let fidelity { document = .object(members + [JSON.Member("fidelity", fidelity.json)]) }
        if case .object(let members) = document, !classFiles.isEmpty {
            document = .object(members + [JSON.Member("classFiles", .array(classFiles.map { .string($0) }))])
        }
        print(document.rendered(), terminator: "")
    }
}

/// A conversion that failed after the model was made: one line, naming the file.
struct ConversionError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// The summary's note on the weights a program's blocks or groups left float (their axis not a multiple of the size,
/// as coremltools leaves them): none at the default granularity, where every large constant is compressed.
private func keptFloat(_ model: Model, _ output: OutputRequest) -> [(label: String, items: [String])] {
    let size: Int
    switch output.granularity {
    case .perChannel: return []
    case .perBlock(let given), .perGroupedChannel(let given): size = given
    }
    let kept = model.nodes.flatMap { node in
        node.operation.weightTensors.filter { $0.values.count >= MLProgramWriter.compressionThreshold && !$0.values.storedPrecision.isQuantized }
            .map { "\(node.name) \($0.name) \($0.shape)" }
    }
    guard !kept.isEmpty else { return [] }
    let parts = output.granularity == .perBlock(size: size) ? "blocks of \(size) along the input axis (1)" : "groups of \(size) output channels (axis 0)"
    return [("Kept float", ["\(kept.count) weight tensor\(kept.count == 1 ? "" : "s") of \(MLProgramWriter.compressionThreshold) values or more that "
                            + "\(parts) do not divide, as coremltools leaves them: " + kept.prefix(4).joined(separator: ", ") + (kept.count > 4 ? ", ..." : "")])]
}
