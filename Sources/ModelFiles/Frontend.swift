import Naming
import CaffeFrontend
import CoreMLBackend
import DarknetFrontend
import Inspection
import KerasFrontend
import ONNXFrontend
import ModelFormat
import TensorFlowFrontend
import TFLiteFrontend

/// One kind of model file the toolkit reads, in one place: the formats
/// content detection recognises as it (`DetectedFormat`), what messages
/// call it, and how `coreml-inspect` reads it. `coreml-convert`'s
/// subcommands and `coreml-predict` check their files against an entry
/// (`require`), `coreml-inspect` reads a file through the entry that claims
/// it (`reading`); a new format is one entry here, plus its rule in
/// `FormatDetection`.
public struct Frontend: Sendable {
    /// What a file of this kind is, for messages: "a TensorFlow graph".
    public let name: String
    /// The `coreml-convert` subcommand that converts it (weights: with
    /// their network definition, given first).
    public let subcommand: String
    /// Values without a structure (a caffemodel, Darknet weights): they
    /// convert only beside a definition of the same subcommand.
    public var isWeights: Bool { !formats.isDisjoint(with: [.caffeModel, .darknetWeights]) }
    /// The detected formats it reads.
    public let formats: Set<DetectedFormat>
    /// Whether a file of one of `formats` is this kind (an HDF5 file is a
    /// Keras model or Caffe weights).
    let claims: @Sendable (_ path: String) -> Bool
    /// The file read as `coreml-inspect` shows it.
    let inspect: @Sendable (_ request: InspectRequest, _ loadWeights: Bool) throws -> InspectedModel

    /// Refuses the file at `path` when its content says it is another kind
    /// of file (`FileKind.check`).
    /// - Throws: `FileError` or `FormatDetectionError`.
    public func require(_ path: String) throws {
        // An ML Program package is a folder (issue 36: the runtime reads what MLProgramWriter writes).
        if formats == [.coreML], MLProgramWriter.isPackage(path) { return }
        try ModelFiles.kind(of: path).check(expected: formats, what: name)
    }

    public static let coreML = Frontend(name: "a Core ML model", subcommand: "mlmodel", formats: [.coreML], claims: { _ in true },
                                        inspect: ModelFiles.inspectCoreML)
    public static let caffe = Frontend(name: "a Caffe deploy definition (prototxt)", subcommand: "caffe", formats: [.caffePrototxt], claims: { _ in true },
                                       inspect: ModelFiles.inspectCaffe)
    public static let tensorflow = Frontend(name: "a TensorFlow graph", subcommand: "tensorflow", formats: [.tensorflowGraph, .tensorflowText], claims: { _ in true },
                                            inspect: ModelFiles.inspectTensorFlow)
    /// A Keras `.h5` carries its architecture (`model_config`).
    public static let keras = Frontend(name: "a Keras model (.h5)", subcommand: "keras", formats: [.hdf5], claims: ModelFiles.isKerasModel,
                                       inspect: ModelFiles.inspectKeras)
    /// A caffemodel, or HDF5 weights without a Keras architecture (`all`
    /// asks `keras` first).
    public static let caffeWeights = Frontend(name: "Caffe weights (.caffemodel or .caffemodel.h5)", subcommand: "caffe", formats: [.caffeModel, .hdf5],
                                              claims: { _ in true }, inspect: ModelFiles.inspectCaffeWeights)

    /// A Darknet `.cfg`, alone or with its `.weights`.
    public static let darknet = Frontend(name: "a Darknet network definition (.cfg)", subcommand: "darknet", formats: [.darknetConfig], claims: { _ in true },
                                         inspect: ModelFiles.inspectDarknet)
    /// Darknet weights: values without a structure.
    public static let darknetWeights = Frontend(name: "Darknet weights (.weights)", subcommand: "darknet", formats: [.darknetWeights], claims: { _ in true },
                                                inspect: ModelFiles.inspectDarknetWeights)

    /// An ONNX model (PyTorch's export format).
    public static let onnx = Frontend(name: "an ONNX model", subcommand: "onnx", formats: [.onnx], claims: { _ in true }, inspect: ModelFiles.inspectONNX)

    /// A TFLite / LiteRT model (.tflite).
    public static let tflite = Frontend(name: "a TFLite model", subcommand: "tflite", formats: [.tflite], claims: { _ in true }, inspect: ModelFiles.inspectTFLite)

    /// Every kind, Keras before Caffe weights (both read HDF5 files).
    public static let all: [Frontend] = [coreML, caffe, tensorflow, keras, caffeWeights, darknet, darknetWeights, onnx, tflite]

    /// The kind that reads `request`'s file.
    static func reading(_ request: InspectRequest) -> Frontend { claiming(request.path, format: request.format) }

    /// The kind that reads the file at `path`, whose content is `format`
    /// (`ModelFiles.detect`).
    public static func claiming(_ path: String, format: DetectedFormat) -> Frontend {
        switch format {
        case .coreML: coreML
        case .caffePrototxt: caffe
        case .caffeModel: caffeWeights
        case .hdf5: keras.claims(path) ? keras : caffeWeights
        case .tensorflowGraph, .tensorflowText: tensorflow
        case .darknetConfig: darknet
        case .darknetWeights: darknetWeights
        case .onnx: onnx
        case .tflite: tflite
        }
    }
}

extension ModelFiles {
    static func inspectCoreML(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        let file = try CoreMLReader.read(from: path, structureOnly: !loadWeights)
        // Shown, not refused: inspecting a broken file is how one finds out why.
        var notes: [(label: String, items: [String])] = []
        do {
            try file.model.validate()
        } catch {
            notes.append(("Warning", ["not a valid model, which predict refuses and Core ML may too: \(error)"]))
        }
        return InspectedModel(coreMLFile: file, path: path, notes: notes)
    }

    static func inspectCaffe(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        let weights = request.weights
        if weights == nil && loadWeights {
            throw FormatDetectionError(message: "\(path): \(option: .weightStats) lists weight values, and a deploy definition has none: "
                                       + "give its weights too (\(path) WEIGHTS.caffemodel \(option: .weightStats))")
        }
        let net: CaffeInspection.Net
        do {
            net = try CaffeInspection.convert(deploy: path, weights: weights)
        } catch {
            // A deploy definition whose layers convert refuses is shown as it states itself, with every
            // obstacle; anything else (syntax, shapes, the weights file) stays its one error.
            if let outline = try? CaffeInspection.outline(deploy: path), !outline.obstacles.isEmpty {
                return InspectedModel(path: weights.map { "\(path) + \($0)" } ?? path,
                                      format: FileFormatInfo(id: "caffe", name: outline.format), outline: outline)
            }
            guard let error = error as? ModelError else { throw error }
            // The converter names the file already (`deploy.prototxt: ...`).
            throw FormatDetectionError(message: error.message.hasPrefix("\(path): ") ? error.message : "\(path): \(error.message)")
        }
        var precisions: [String: [String: Precision]] = [:]
        for node in net.model.nodes {
            let layer = node.name.components(separatedBy: "__").first ?? node.name
            if net.doubleLayers.contains(node.name) || net.doubleLayers.contains(layer) { precisions[node.name] = ["*": .float64] }
        }
        var notes = notes(net)
        if let batch = CaffeConverter.batchNote(net.declaredBatches) { notes.append(batch) }
        if weights == nil {
            notes.append(("Weights", ["not given: shapes and parameter counts from the deploy definition "
                                      + "(inspect \(path) WEIGHTS.caffemodel reads them)"]))
        }
        return InspectedModel(path: weights.map { "\(path) + \($0)" } ?? path, format: FileFormatInfo(id: "caffe", name: net.format),
                              name: net.name, content: .network(net.model), precisions: precisions, notes: notes)
    }

    static func inspectTensorFlow(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        let format = FileFormatInfo(id: "tensorflow", name: request.format == .tensorflowText ? "TensorFlow graph (text)" : "TensorFlow graph")
        // As `convert tensorflow` would convert it without options (placeholders need static shapes).
        return try inspectGraph(path, format, convert: { try TensorFlowConverter.convert(graph: path) },
                                outline: { try TensorFlowConverter.outline(graph: path, failure: $0) })
    }

    static func inspectONNX(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        // As `convert onnx` would convert it without options (symbolic sizes other than the batch need --input-shape there).
        return try inspectGraph(path, FileFormatInfo(id: "onnx", name: "ONNX model"), convert: { try ONNXConverter.convert(model: path) },
                                outline: { try ONNXConverter.outline(model: path, failure: $0) })
    }

    static func inspectTFLite(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        // As `convert tflite` would convert it without options.
        return try inspectGraph(path, FileFormatInfo(id: "tflite", name: "TFLite model"), convert: { try TFLiteConverter.convert(model: path) },
                                outline: { try TFLiteConverter.outline(model: path, failure: $0) })
    }

    /// A graph file as `convert` would convert it; one that parses but does
    /// not convert is shown as it states itself, with every obstacle
    /// (`outline`, given the conversion's error); one that does not parse is the error.
    private static func inspectGraph(_ path: String, _ format: FileFormatInfo, convert: () throws -> Model,
                                     outline: (any Error) throws -> SourceOutline) throws -> InspectedModel {
        let model: Model
        do {
            model = try convert()
        } catch {
            guard let outline = try? outline(error) else { throw error }
            return InspectedModel(path: path, format: format, outline: outline)
        }
        return InspectedModel(path: path, format: format, content: .network(model))
    }

    static func inspectDarknet(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        if request.weights == nil && loadWeights {
            throw FormatDetectionError(message: "\(path): \(option: .weightStats) lists weight values, and a network definition has none: "
                                       + "give its weights too (\(path) WEIGHTS.weights \(option: .weightStats))")
        }
        let model: Model
        do {
            // As `convert darknet` would convert it; without weights, the structure alone.
            model = try DarknetConverter.convert(config: path, weights: request.weights)
        } catch {
            // A definition whose layer types or keys convert refuses is shown as it states itself, with every
            // obstacle; anything else (a missing size, weights that do not fit) stays its one error.
            guard let outline = try? DarknetConverter.outline(config: path), !outline.obstacles.isEmpty else { throw error }
            return InspectedModel(path: request.weights.map { "\(path) + \($0)" } ?? path,
                                  format: FileFormatInfo(id: "darknet", name: "Darknet network"), outline: outline)
        }
        let notes: [(label: String, items: [String])] = request.weights == nil
            ? [("Weights", ["not given: shapes and parameter counts from the definition (inspect \(path) WEIGHTS.weights reads them)"])] : []
        return InspectedModel(path: request.weights.map { "\(path) + \($0)" } ?? path,
                              format: FileFormatInfo(id: "darknet", name: "Darknet network"), content: .network(model), notes: notes)
    }

    static func inspectDarknetWeights(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        throw FormatDetectionError(message: "\(request.path): Darknet weights are values without names or shapes: "
                                   + "inspect them with their network definition (NETWORK.cfg \(request.path))")
    }

    static func inspectKeras(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        let format = FileFormatInfo(id: "keras", name: "Keras model (HDF5)")
        let model: Model
        do {
            // A Keras .h5 with its architecture: as `convert keras` would convert it.
            model = try KerasConverter.convert(model: path, readingKernels: loadWeights)
        } catch {
            // A model whose layers or inputs convert refuses is shown as it states itself, with every
            // obstacle. HDF5 reads lazily: a broken weights group or heap, or a size past the limits,
            // surfaces only in the conversion, and stays its one error (an HDF5Error is not retried).
            guard error is KerasError, let outline = try? KerasConverter.outline(model: path), !outline.obstacles.isEmpty else { throw error }
            return InspectedModel(path: path, format: format, outline: outline)
        }
        return InspectedModel(path: path, format: format, content: .network(model))
    }

    static func inspectCaffeWeights(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        let file = try CaffeInspection.readWeightsFile(path, loadValues: loadWeights)
        let layers = file.layers.map { layer in
            WeightsOnlyFile.Layer(name: layer.name, type: layer.type, inputs: layer.bottoms, outputs: layer.tops,
                                  blobs: layer.blobs.map {
                                      WeightsOnlyFile.Blob(shape: $0.shape, precision: Precision.floatNames[$0.precision] ?? .float32,
                                                           values: $0.values)
                                  })
        }
        return InspectedModel(path: path, format: FileFormatInfo(id: request.format == .hdf5 ? "caffe-hdf5" : "caffemodel", name: file.format),
                              name: file.name, content: .weightsOnly(WeightsOnlyFile(layers: layers, hasTopology: file.hasTopology)))
    }
}

/// Kinds are told apart by their names, which are unique.
extension Frontend: Equatable {
    public static func == (a: Frontend, b: Frontend) -> Bool { a.name == b.name }
}
