import CoreMLBackend
import ModelFormat

/// A model file as `inspect` presents it, whatever its format: the graph
/// (a Core ML model, or a Caffe deploy definition converted with its
/// weights) or, for a weights file given on its own, its layers and blobs;
/// plus what only the file knows (format, stored precisions, exact feature
/// types) and notes on what a conversion folded away.
public struct InspectedModel: Sendable {
    /// The file(s) as given, for headings: `deploy.prototxt + weights.caffemodel`.
    public var path: String
    public var format: FileFormatInfo
    /// The network's own name (Caffe's `name:`); "" when it has none.
    public var name: String
    public var content: Content
    /// Feature types as the file states them (`multiarray<float32,[3]>`),
    /// by feature name; features missing here are described from the model.
    public var featureTypes: [String: String]
    /// Stored precision of weight tensors, by node name and tensor name
    /// ("weights", "bias", ...; "*" for every tensor of the node), where the
    /// weights themselves do not say (`Weights.storedPrecision`).
    public var precisions: [String: [String: Precision]]
    /// Labelled remarks shown after the layer counts, one item a line:
    /// `("Folded", ["bn1 (BatchNorm), scale1 (Scale) into conv1"])`.
    public var notes: [(label: String, items: [String])]
    /// For a Core ML file: the oldest systems that load it, and why.
    public var deployment: DeploymentRequirement?
    /// For an ML Program package: its opset, compute precision, operations and weight file.
    public var program: ProgramFacts?
    /// For a model file that parses but does not convert: what the file
    /// states and every obstacle (`init(outline:)`); nil otherwise.
    public var outline: SourceOutline?

    public enum Content: Sendable {
        case network(Model)
        case weightsOnly(WeightsOnlyFile)
    }

    public init(path: String, format: FileFormatInfo, name: String = "", content: Content,
                featureTypes: [String: String] = [:], precisions: [String: [String: Precision]] = [:],
                notes: [(label: String, items: [String])] = []) {
        self.path = path
        self.format = format
        self.name = name
        self.content = content
        self.featureTypes = featureTypes
        self.precisions = precisions
        self.notes = notes
    }

    /// A Core ML file read by `CoreMLReader`: the feature types as the file
    /// states them, the weights' stored precisions (theirs), and notes.
    /// An ML Program package's format names its opset, and its notes the
    /// program's compute precision, operations by type and weight file.
    public init(coreMLFile file: CoreMLFile, path: String, notes: [(label: String, items: [String])] = []) {
        let version = file.specificationVersion
        var format = FileFormatInfo(id: "coreml", name: "Core ML model, specification version \(version)", version: version)
        var notes = notes
        if let program = file.program {
            format = FileFormatInfo(id: "mlprogram", name: "ML Program, specification version \(version), opset \(program.opset)", version: version)
            let operations = program.operationCounts.map { "\($0.type) \($0.count)" }.joined(separator: ", ")
            notes.insert(("Program", [
                (program.programCount > 1 ? "\(program.programCount) programs in a pipeline, each reading the outputs before it; " : "")
                    + (program.computesInFloat16 ? "computes in float16 (float32 inputs and outputs)" : "computes in float32"),
                "\(program.operationCount) operations: \(operations)",
                program.weightFiles.isEmpty ? "no weight file (every weight inline)"
                    : program.weightFiles.map { "weights/\($0.name): \(SummaryText.grouped($0.bytes)) bytes" }.joined(separator: ", "),
            ]), at: 0)
        }
        self.init(path: path, format: format, content: .network(file.model), featureTypes: file.featureTypes.compactMapValues(SummaryText.typeText),
                  notes: notes)
        deployment = DeploymentRequirement(model: file.model, specificationVersion: version)
        program = file.program
        if let program = file.program {
            // coremltools' iOS15 target: the first systems that run ML Programs (specification 6); iOS 16's opset
            // CoreML6 (specification 7) holds compressed weights.
            deployment?.systems = DeploymentTarget.oldest(for: Int32(version)).map(\.description)
            let compressed = program.operationCounts.contains { $0.type.hasPrefix("constexpr_") }
            let reason = version == 6 ? "ML Program model"
                : compressed ? "compressed weights (constexpr operations) in an ML Program model" : "ML Program model in opset \(program.opset)"
            deployment?.raisedBy = [DeploymentRequirement.Group(type: reason, version: version, layers: [])]
        }
    }

    /// A model file that parses but does not convert, shown as its source
    /// states it. Its nodes are the content's layers (a weights-only file's
    /// kind of content: names, types, inputs and outputs, no converted
    /// graph), so `--layers` and `--graph` show them as the file does.
    public init(path: String, format: FileFormatInfo, outline: SourceOutline) {
        let layers = outline.nodes.map { WeightsOnlyFile.Layer(name: $0.name, type: $0.op, inputs: $0.inputs, outputs: $0.outputs, blobs: []) }
        self.init(path: path, format: format, content: .weightsOnly(WeightsOnlyFile(layers: layers, hasTopology: true)))
        self.outline = outline
    }

    /// The graph, when the file has one.
    public var model: Model? {
        if case .network(let model) = content { return model }
        return nil
    }

    /// Stored precision of tensor `tensor` of node `node`, holding `values`:
    /// as `precisions` says (a Caffe net's double blobs), else as the
    /// weights were read.
    public func precision(node: String, tensor: String, values: Weights) -> Precision {
        precisions[node]?[tensor] ?? precisions[node]?["*"] ?? values.storedPrecision
    }
}

/// Which format a file is in, for people and for `--json`.
public struct FileFormatInfo: Equatable, Sendable {
    /// Stable identifier: `coreml`, `caffe`, `caffemodel`, `caffe-hdf5`.
    public var id: String
    /// As the summary shows it: `Core ML model, specification version 1`, `Caffe V1 net`.
    public var name: String
    /// Core ML's specification version; nil for other formats.
    public var version: Int?

    public init(id: String, name: String, version: Int? = nil) {
        self.id = id
        self.name = name
        self.version = version
    }
}

/// A weights file read without a network definition: layers and their blobs.
public struct WeightsOnlyFile: Sendable {
    public var layers: [Layer]
    /// Whether the file records layer types, bottoms and tops (a caffemodel
    /// does; an HDF5 snapshot stores blobs only).
    public var hasTopology: Bool

    public struct Layer: Sendable {
        public var name: String
        /// "" when the file does not say.
        public var type: String
        public var inputs: [String]
        public var outputs: [String]
        public var blobs: [Blob]

        public init(name: String, type: String, inputs: [String], outputs: [String], blobs: [Blob]) {
            self.name = name
            self.type = type
            self.inputs = inputs
            self.outputs = outputs
            self.blobs = blobs
        }
    }

    public struct Blob: Sendable {
        public var shape: [Int]
        public var precision: Precision
        public var values: Weights

        public init(shape: [Int], precision: Precision, values: Weights) {
            self.shape = shape
            self.precision = precision
            self.values = values
        }
    }

    public init(layers: [Layer], hasTopology: Bool) {
        self.layers = layers
        self.hasTopology = hasTopology
    }
}

/// One stored weight tensor: where it belongs, its shape, precision and values.
public struct WeightTensor: Sendable {
    /// The node (or input, for a mean image; or weights-file layer) it belongs to.
    public var layer: String
    /// Its role: `weights`, `bias`, `gamma`, ..., `meanImage`, or `blob 0`.
    public var name: String
    public var shape: [Int]
    public var precision: Precision
    public var values: Weights
    /// Whether it counts as a parameter (a mean image is preprocessing, not one).
    public var isParameter: Bool

    public var count: Int { values.count }
}

extension InspectedModel {
    /// Every weight tensor, in graph order (inputs' mean images first).
    public var weightTensors: [WeightTensor] {
        switch content {
        case .network(let model):
            var tensors: [WeightTensor] = []
            for input in model.inputs {
                if let mean = input.image?.meanImage {
                    tensors.append(WeightTensor(layer: input.name, name: "meanImage",
                                                shape: [input.image!.channels, input.image!.height, input.image!.width],
                                                precision: .float32, values: mean, isParameter: false))
                }
            }
            for node in model.nodes {
                for tensor in node.operation.weightTensors {
                    tensors.append(WeightTensor(layer: node.name, name: tensor.name, shape: tensor.shape,
                                                precision: precision(node: node.name, tensor: tensor.name, values: tensor.values),
                                                values: tensor.values, isParameter: true))
                }
            }
            return tensors
        case .weightsOnly(let file):
            return file.layers.flatMap { layer in
                layer.blobs.enumerated().map { index, blob in
                    WeightTensor(layer: layer.name, name: "blob \(index)", shape: blob.shape, precision: blob.precision,
                                 values: blob.values, isParameter: true)
                }
            }
        }
    }

    /// Parameter values and bytes per stored precision, smallest precision first.
    public var parametersByPrecision: [(precision: Precision, count: Int, bytes: Int)] {
        var totals: [Precision: (count: Int, bytes: Int)] = [:]
        for tensor in weightTensors where tensor.isParameter && tensor.count > 0 {
            let total = totals[tensor.precision] ?? (0, 0)
            totals[tensor.precision] = (total.count + tensor.count, total.bytes + tensor.precision.bytes(count: tensor.count))
        }
        return totals.keys.sorted().map { (precision: $0, count: totals[$0]!.count, bytes: totals[$0]!.bytes) }
    }
}
