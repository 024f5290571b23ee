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
        // An ML Program package is a folder (issue 36: what MLProgramWriter writes).
        if MLProgramWriter.isPackage(path) { return .coreML }
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

    /// Whether the file at `path` is a PyTorch model (`FormatDetection.isPyTorch`: bytes only, never unpickled).
    public static func isPyTorch(_ path: String) throws -> Bool {
        try withBytes(of: path) { FormatDetection.isPyTorch($0) }
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
            if format == .darknetConfig, index < files.count, (try? detect(files[index])) == .darknetWeights {
                weights = files[index]
                index += 1
            } else if format == .caffePrototxt {
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

    /// Reads what `request` names, through the frontend whose format it is.
    /// - Parameter loadWeights: load weight values (for `--weight-stats`); the
    ///   summary, layers, JSON and graph never need them.
    public static func load(_ request: InspectRequest, loadWeights: Bool) throws -> InspectedModel {
        try Frontend.reading(request).inspect(request, loadWeights)
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
        if !net.computed.isEmpty {
            let priors = net.model.detector.flatMap { detector in
                try? ShapeInference.shapes(of: net.model)[detector.coordinatesTensor]?.dimensions.dropLast().last
            }.map { "\($0) priors, " } ?? ""
            notes.append(("Computed", ["\(net.computed.map { "\($0.layer) (\($0.type))" }.joined(separator: ", ")): \(priors)constants of the decoding"]))
        }
        return notes
    }
}
