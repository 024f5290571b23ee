import CaffeFrontend
import CoreMLBackend
import FileIO
import Foundation
import Inspection
import ModelFormat
import TensorFlowFrontend
import KerasFrontend
import HDF5

/// One thing to inspect: a model file, or a Caffe deploy definition with
/// its weights (or alone: its structure).
public struct InspectRequest: Sendable {
    public var path: String
    public var format: DetectedFormat
    /// The weights of a Caffe deploy prototxt; nil for its structure alone.
    public var weights: String?

    public init(path: String, format: DetectedFormat, weights: String? = nil) {
        self.path = path
        self.format = format
        self.weights = weights
    }
}

/// Model files of every format the toolkit reads, recognised by their
/// content and read into `InspectedModel`, which `SummaryText`,
/// `LayerTable`, `WeightTable`, `InspectionJSON` and `GraphDot` render:
///
///     let inspected = try ModelFiles.inspect("AgeNet.mlmodel")
///     print(SummaryText.render(inspected))
public enum ModelFiles {
    /// Reads the model at `path` (a Caffe deploy prototxt with `weights`,
    /// or alone), as `coreml-inspect` shows it.
    /// - Parameter loadWeights: load weight values (for weight statistics);
    ///   a summary, layer table, JSON or graph never needs them.
    /// - Throws: `FormatDetectionError`, `FileError`, or the reader's error, each naming the file.
    public static func inspect(_ path: String, weights: String? = nil, loadWeights: Bool = false) throws -> InspectedModel {
        try load(InspectRequest(path: path, format: try detect(path), weights: weights), loadWeights: loadWeights)
    }

    /// The format of the file at `path`, from its bytes.
    /// - Throws: `FileError` (cannot open, not a regular file) or `FormatDetectionError`.
    public static func detect(_ path: String) throws -> DetectedFormat {
        do {
            return try withBytes(of: path) { bytes throws(FormatDetectionError) in try FormatDetection.detect(bytes) }
        } catch let error as FormatDetectionError {
            throw FormatDetectionError(message: "\(path): \(error.message)")
        }
    }

    /// What the file at `path` is, from one look at its bytes (`FileKind`).
    /// - Throws: `FileError` (cannot open, not a regular file).
    public static func kind(of path: String) throws -> FileKind {
        try withBytes(of: path) { FileKind(bytes: $0, path: path) }
    }

    /// Refuses the file at `path` when its content says it is another kind
    /// of file than `what` (`FileKind.check`).
    /// - Throws: `FileError` or `FormatDetectionError`.
    public static func require(_ path: String, isOneOf expected: Set<DetectedFormat>, _ what: String) throws {
        try kind(of: path).check(expected: expected, what: what)
    }

    /// `body` with the mapped bytes of the file at `path`, kept alive for the call.
    static func withBytes<Result>(of path: String, _ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        let file = try MappedFile(path: path)
        return try withExtendedLifetime(file) { try body(file.bytes) }
    }

    /// Pairs each Caffe deploy prototxt with its weights: the weights file
    /// right after it, or else the next of `weightsFiles`; without either
    /// it stands alone.
    public static func requests(files: [String], weightsFiles: [String]) throws -> [InspectRequest] {
        var pending = weightsFiles[...]
        var requests: [InspectRequest] = []
        var index = 0
        while index < files.count {
            let path = files[index]
            let format = try detect(path)
            index += 1
            var weights: String?
            if format == .caffePrototxt {
                if index < files.count, let next = try? detect(files[index]), next == .caffeModel || next == .hdf5 {
                    weights = files[index]
                    index += 1
                } else if let next = pending.popFirst() {
                    let nextFormat = try detect(next)
                    guard nextFormat == .caffeModel || nextFormat == .hdf5 else {
                        throw FormatDetectionError(message: "\(next): not Caffe weights (a .caffemodel or .caffemodel.h5), so not the weights of \(path)")
                    }
                    weights = next
                }
                // Else the deploy definition alone: its structure and shapes.
            }
            requests.append(InspectRequest(path: path, format: format, weights: weights))
        }
        if let extra = pending.first {
            throw FormatDetectionError(message: "\(extra): weights without a Caffe deploy prototxt to go with them")
        }
        return requests
    }

    /// Reads what `request` names.
    /// - Parameter loadWeights: load weight values (for `--weights`); the
    ///   summary, layers, JSON and graph never need them.
    public static func load(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        let path = request.path
        switch request.format {
        case .coreML:
            let file = try CoreMLReader.read(from: path, structureOnly: !loadWeights)
            // Shown, not refused: inspecting a broken file is how one finds out why.
            var notes: [(label: String, items: [String])] = []
            do {
                try file.model.validate()
            } catch {
                notes.append(("Warning", ["not a valid model, which predict refuses and Core ML may too: \(error)"]))
            }
            return InspectedModel(coreMLFile: file, path: path, notes: notes)
        case .caffePrototxt:
            let weights = request.weights
            if weights == nil && loadWeights {
                throw FormatDetectionError(message: "\(path): --weights lists weight values, and a deploy definition has none: "
                                   + "give its weights too (\(path) WEIGHTS.caffemodel --weights)")
            }
            let net: CaffeInspection.Net
            do {
                net = try CaffeInspection.convert(deploy: path, weights: weights)
            } catch let error as ModelError {
                throw FormatDetectionError(message: "\(path): \(error)")
            }
            var precisions: [String: [String: Precision]] = [:]
            for node in net.model.nodes {
                let layer = node.name.components(separatedBy: "__").first ?? node.name
                if net.doubleLayers.contains(node.name) || net.doubleLayers.contains(layer) { precisions[node.name] = ["*": .float64] }
            }
            var notes = notes(net)
            if weights == nil {
                notes.append(("Weights", ["not given: shapes and parameter counts from the deploy definition "
                                          + "(inspect \(path) WEIGHTS.caffemodel reads them)"]))
            }
            return InspectedModel(path: weights.map { "\(path) + \($0)" } ?? path, format: FileFormatInfo(id: "caffe", name: net.format),
                                  name: net.name, content: .network(net.model), precisions: precisions, notes: notes)
        case .tensorflowGraph, .tensorflowText:
            // As `convert tensorflow` would convert it without options (placeholders need static shapes).
            let model = try TensorFlowConverter.convert(graph: path)
            return InspectedModel(path: path, format: FileFormatInfo(
                                      id: "tensorflow", name: request.format == .tensorflowText ? "TensorFlow graph (text)" : "TensorFlow graph"),
                                  content: .network(model))
        case .hdf5 where isKerasModel(path):
            // A Keras .h5 with its architecture: as `convert keras` would convert it.
            let model = try KerasConverter.convert(model: path, readingKernels: loadWeights)
            return InspectedModel(path: path, format: FileFormatInfo(id: "keras", name: "Keras model (HDF5)"), content: .network(model))
        case .caffeModel, .hdf5:
            let file = try CaffeInspection.readWeightsFile(path, loadValues: loadWeights)
            let layers = file.layers.map { layer in
                WeightsOnlyFile.Layer(name: layer.name, type: layer.type, inputs: layer.bottoms, outputs: layer.tops,
                                      blobs: layer.blobs.map {
                                          WeightsOnlyFile.Blob(shape: $0.shape, precision: Precision(rawValue: $0.precision) ?? .float32,
                                                               values: $0.values)
                                      })
            }
            return InspectedModel(path: path, format: FileFormatInfo(id: request.format == .hdf5 ? "caffe-hdf5" : "caffemodel", name: file.format),
                                  name: file.name, content: .weightsOnly(WeightsOnlyFile(layers: layers, hasTopology: file.hasTopology)))
        }
    }

    /// Keras files carry their architecture in the root attribute
    /// `model_config` (read, and its errors reported, by the Keras reader).
    static func isKerasModel(_ path: String) -> Bool {
        (try? HDF5File(path: path).hasAttribute("model_config", of: "/")) ?? false
    }

    /// `Removed: drop6, drop7 (Dropout)` and `Folded: bn1 (BatchNorm), scale1 (Scale) into conv1`.
    static func notes(_ net: CaffeInspection.Net) -> [(label: String, items: [String])] {
        var notes: [(label: String, items: [String])] = []
        if !net.removed.isEmpty {
            var types: [String] = []
            var names: [String: [String]] = [:]
            for (layer, type) in net.removed {
                if names[type] == nil { types.append(type) }
                names[type, default: []].append(layer)
            }
            notes.append(("Removed", types.map { "\(names[$0]!.joined(separator: ", ")) (\($0))" }))
        }
        if !net.folded.isEmpty {
            var targets: [String] = []
            var layers: [String: [String]] = [:]
            for (layer, type, into) in net.folded {
                if layers[into] == nil { targets.append(into) }
                layers[into, default: []].append("\(layer) (\(type))")
            }
            notes.append(("Folded", targets.map { "\(layers[$0]!.joined(separator: ", ")) into \($0)" }))
        }
        return notes
    }
}
