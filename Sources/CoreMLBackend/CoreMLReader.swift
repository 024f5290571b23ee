import FileIO
import ModelFormat
import CoreMLSchema
import Protobuf

/// A Core ML model file as read: its specification version, the model,
/// and how the file types its features (which the model does not keep:
/// an array's element type, its stored shape). Weights carry their stored
/// precision (`Weights.storedPrecision`).
public struct CoreMLFile: Sendable {
    /// `Model.specificationVersion` as stored in the file.
    public var specificationVersion: Int
    public var model: Model
    /// By feature name, for every input and output whose type the file states.
    public var featureTypes: [String: StoredFeatureType] = [:]
    /// For an ML Program package: what the program holds that the model does not show.
    public var program: ProgramFacts? = nil
}

/// An ML Program's own facts, for `coreml-inspect`: its opset, its
/// operations by type (most frequent first, then by name), whether it
/// computes in float16, and the size of its weight file.
public struct ProgramFacts: Equatable, Sendable {
    public var opset: String
    public var operationCounts: [(type: String, count: Int)]
    public var computesInFloat16: Bool
    /// The weight files the program reads (`weight.bin`; coremltools'
    /// pipelines name theirs `0-weight.bin`, ...) and their sizes.
    public var weightFiles: [(name: String, bytes: Int)]
    /// Their bytes together.
    public var weightFileBytes: Int { weightFiles.reduce(0) { $0 + $1.bytes } }
    /// How many programs: more than one in a pipeline of programs (`programChain`).
    public var programCount = 1

    /// Operations counted by type (`counts`), most first.
    init(opset: String, counts: [String: Int], computesInFloat16: Bool, weightFiles: [(name: String, bytes: Int)], programCount: Int = 1) {
        self.opset = opset
        operationCounts = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { (type: $0.key, count: $0.value) }
        self.computesInFloat16 = computesInFloat16
        self.weightFiles = weightFiles
        self.programCount = programCount
    }

    /// Every operation, `const` included.
    public var operationCount: Int { operationCounts.reduce(0) { $0 + $1.count } }
    /// The operations that compute (all but `const`): each rounds its result once at float16.
    public var computingOperationCount: Int { operationCounts.filter { $0.type != "const" }.reduce(0) { $0 + $1.count } }

    public static func == (a: ProgramFacts, b: ProgramFacts) -> Bool {
        a.opset == b.opset && a.operationCounts.map(\.type) == b.operationCounts.map(\.type)
            && a.operationCounts.map(\.count) == b.operationCounts.map(\.count)
            && a.computesInFloat16 == b.computesInFloat16 && a.weightFiles.map(\.name) == b.weightFiles.map(\.name)
            && a.weightFiles.map(\.bytes) == b.weightFiles.map(\.bytes) && a.programCount == b.programCount
    }
}

/// A feature's type as a Core ML file writes it.
public enum StoredFeatureType: Equatable, Sendable {
    case image(colorSpace: String, width: Int, height: Int)
    /// `shape` as stored (with any batch axis); empty when unstated.
    case multiArray(dataType: String, shape: [Int])
    /// A shape range (specification 3): each dimension from `lower` to
    /// `upper` (nil: unbounded).
    case multiArrayRange(dataType: String, lower: [Int], upper: [Int?])
    case dictionary(keyType: String)
    case string, int64, double
}

/// A `.mlmodel` that decodes as protobuf but is not a model this toolkit
/// can read: a missing part, a value out of range, an unsupported type.
public struct CoreMLFormatError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// Where the offending message starts in the file.
    public var offset: Int

    public init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "byte \(offset): \(message)" }
}

/// A failure to read a model file, with the file's path in front.
public struct ModelFileError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var underlying: any Error & Sendable

    public var description: String { "\(path): \(underlying)" }

    /// Runs `body`, which reads the file at `path`: what it finds wrong in
    /// the bytes (a `DecodeError` or a `CoreMLFormatError`, each with its
    /// offset) comes out as this error naming the file; any other error (a
    /// `FileError` names the file already) as it is.
    static func reading<R>(_ path: String, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as DecodeError {
            throw ModelFileError(path: path, underlying: error)
        } catch let error as CoreMLFormatError {
            throw ModelFileError(path: path, underlying: error)
        }
    }
}

/// Reads `.mlmodel` files (NeuralNetwork and NeuralNetworkClassifier) into
/// `Model`, losslessly for everything `CoreMLWriter` writes. Weights are
/// not copied: they stay slices of the memory-mapped file, which lives as
/// long as any of them.
public enum CoreMLReader {
    /// Reads the model at `path`: a `.mlmodel` file, or an ML Program
    /// package folder (`MLProgramReader`, which maps its weight file
    /// whatever `structureOnly` says).
    /// - Parameter structureOnly: skip weight payloads (their counts are
    ///   kept); for summaries of large files.
    /// - Throws: `ModelFileError` wrapping a `FileError`, a `DecodeError` or a
    ///   `CoreMLFormatError`, each with its byte offset.
    public static func read(from path: String, structureOnly: Bool = false) throws -> CoreMLFile {
        if MLProgramWriter.isPackage(path) { return try MLProgramReader.read(from: path) }
        return try ModelFileError.reading(path) {
            let file = try MappedFile(path: path)
            defer { file.releaseResidentPages() }
            return try read(bytes: file.bytes, owner: file, structureOnly: structureOnly)
        }
    }

    /// Reads a model from `bytes`, which `owner` keeps alive.
    public static func read(bytes: UnsafeRawBufferPointer, owner: AnyObject?,
                            structureOnly: Bool = false) throws -> CoreMLFile {
        let decoded = try BinaryDecoder.decode(MLModel.self, descriptor: descriptorOfModel, bytes: bytes, owner: owner,
                                               options: DecodeOptions(structureOnly: structureOnly, readInStructure: ["fractionalScalingFactor"]))
        return try SpecReader(decoded: decoded).file()
    }

    static var descriptorOfModel: UnsafePointer<ProtobufCMessageDescriptor> {
        proto_coreml_model_descriptor()
    }
}

/// Maps decoded Core ML structs to ModelFormat.
struct SpecReader {
    let decoded: Decoded<MLModel>

    func fail(_ message: String, at message_: UnsafeRawPointer?) -> CoreMLFormatError {
        CoreMLFormatError(message, offset: message_.map { decoded.offset(of: $0) } ?? 0)
    }

    /// The case numbered `number` of a proto enum whose cases `table` lists
    /// in the order of their numbers; another number is refused as layer
    /// `name`'s "unknown `what` N", at `params`.
    func enumCase<Case>(_ table: [Case], _ number: some BinaryInteger, _ what: String, of name: String,
                        at params: UnsafeRawPointer?) throws -> Case {
        guard let index = Int(exactly: number), table.indices.contains(index) else {
            throw fail("layer '\(name)' has the unknown \(what) \(number)", at: params)
        }
        return table[index]
    }

    func file() throws -> CoreMLFile {
        let spec = decoded.root
        if spec.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_PIPELINE {
            return try detector(spec)
        }
        let model = try network(spec)
        return CoreMLFile(specificationVersion: Int(spec.pointee.specificationversion), model: model,
                          featureTypes: featureTypes(spec.pointee.description!))
    }

    /// The neural network (or classifier) model `spec` holds.
    func network(_ spec: UnsafeMutablePointer<MLModel>) throws -> Model {
        guard let description = spec.pointee.description else {
            throw fail("the model has no description (inputs and outputs)", at: spec)
        }
        var layers: (Int, UnsafeMutablePointer<UnsafeMutablePointer<MLLayer>?>?)
        var preprocessing: (Int, UnsafeMutablePointer<UnsafeMutablePointer<MLPreprocessing>?>?)
        var classifier: Classifier?
        // With EXACT_ARRAY_MAPPING array features keep their rank: a leading
        // batch axis of 1 is dropped ([1, C, H, W] is [C, H, W]).
        var exactArrays = false
        switch spec.pointee.type_case {
        case CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK:
            let network = spec.pointee.neuralnetwork!
            layers = (network.pointee.n_layers, network.pointee.layers)
            preprocessing = (network.pointee.n_preprocessing, network.pointee.preprocessing)
            exactArrays = network.pointee.arrayinputshapemapping != CORE_ML__SPECIFICATION__NEURAL_NETWORK_MULTI_ARRAY_SHAPE_MAPPING__RANK5_ARRAY_MAPPING
        case CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK_CLASSIFIER:
            let network = spec.pointee.neuralnetworkclassifier!
            layers = (network.pointee.n_layers, network.pointee.layers)
            preprocessing = (network.pointee.n_preprocessing, network.pointee.preprocessing)
            exactArrays = network.pointee.arrayinputshapemapping != CORE_ML__SPECIFICATION__NEURAL_NETWORK_MULTI_ARRAY_SHAPE_MAPPING__RANK5_ARRAY_MAPPING
            classifier = try self.classifier(network, description)
        default:
            throw fail("the model is not a neural network, a neural network classifier or a detector pipeline "
                       + "(other Core ML model types are not supported)", at: spec)
        }

        let layerMessages = CArrays.buffer(layers.1, layers.0)
        var nodes = try self.nodes(layerMessages)
        let inputFeatures = CArrays.buffer(description.pointee.input, description.pointee.n_input)
        // A permute or load-constant layer is a map's (read as the transpose or constant it is).
        let mapLayers = Set(layerMessages.compactMap { $0 }.filter { SpecificationVersion.mapLayerCases.contains($0.pointee.layer_case.rawValue) }
            .map { CArrays.string($0.pointee.name) })
        let mapping: ArrayMapping = !exactArrays ? .rank5
            : isTensorNetwork(inputFeatures, nodes.filter { !mapLayers.contains($0.name) }) ? .exact : .batchAxis
        var inputs = try inputFeatures.map { try input($0, mapping) }
        try applyPreprocessing(CArrays.buffer(preprocessing.1, preprocessing.0), to: &inputs)
        var outputs: [Output] = []
        for feature in CArrays.buffer(description.pointee.output, description.pointee.n_output) {
            let name = CArrays.string(feature?.pointee.name)
            if let feature, var known = classifier, name == known.predictedFeatureName || name == known.probabilitiesName {
                let description = CArrays.string(feature.pointee.shortdescription)
                if name == known.predictedFeatureName { known.predictedFeatureDescription = description }
                if name == known.probabilitiesName { known.probabilitiesDescription = description }
                classifier = known
                continue
            }
            outputs.append(try output(feature, mapping))
        }
        if let classifier {
            try nameProbabilitiesTensor(classifier, spec.pointee.neuralnetworkclassifier!, &nodes)
        }
        return Model(inputs: inputs, outputs: outputs, nodes: nodes, classifier: classifier,
                     metadata: metadata(description.pointee.metadata))
    }

    /// How `description` types each input and output.
    func featureTypes(_ description: UnsafeMutablePointer<MLModelDescription>) -> [String: StoredFeatureType] {
        var types: [String: StoredFeatureType] = [:]
        for case let feature? in Array(CArrays.buffer(description.pointee.input, description.pointee.n_input))
            + Array(CArrays.buffer(description.pointee.output, description.pointee.n_output)) {
            if let type = storedFeatureType(feature.pointee.type) { types[CArrays.string(feature.pointee.name)] = type }
        }
        return types
    }

    /// Whether an `EXACT_ARRAY_MAPPING` network takes tensors as shaped
    /// (`ArrayMapping.exact`) rather than [C, H, W] maps with a batch axis:
    /// when a layer is a rank-N one that does not just map values, or an
    /// array input is not [1, C, H, W]. (So a network of tensor inputs
    /// shaped [1, C, H, W] and [C, H, W]-era layers reads back as one of
    /// [C, H, W] arrays: the same computation.)
    func isTensorNetwork(_ inputs: UnsafeBufferPointer<UnsafeMutablePointer<MLFeatureDescription>?>, _ nodes: [Node]) -> Bool {
        let rankN = nodes.contains { node in
            guard case .defined(let op) = node.operation, let coding = op.definition as? any LayerCoding else { return false }
            return !coding.keepsShape
        }
        if rankN {
            return true
        }
        return inputs.contains { feature in
            guard let type = feature?.pointee.type, type.pointee.type_case == CORE_ML__SPECIFICATION__FEATURE_TYPE__TYPE_MULTI_ARRAY_TYPE,
                  let array = type.pointee.multiarraytype else { return false }
            let shape = CArrays.array(array.pointee.shape, array.pointee.n_shape)
            return shape.count != 4 || shape[0] != 1
        }
    }

    /// Files from other tools may name the probabilities tensor differently
    /// from the probabilities feature (through `labelProbabilityLayerName`,
    /// or implicitly as the last layer's output); the model spec uses one
    /// name for both, so rename the tensor.
    func nameProbabilitiesTensor(_ classifier: Classifier, _ network: UnsafeMutablePointer<MLClassifier>,
                                 _ nodes: inout [Node]) throws {
        let wanted = classifier.probabilitiesName
        if nodes.contains(where: { $0.outputs.contains(wanted) }) { return }
        var tensor = CArrays.string(network.pointee.labelprobabilitylayername)
        if tensor.isEmpty, let last = nodes.last?.outputs.first { tensor = last }
        guard nodes.contains(where: { $0.outputs.contains(tensor) }) else {
            throw fail("no layer produces the class probabilities ('\(wanted)')", at: network)
        }
        for index in nodes.indices {
            nodes[index].inputs = nodes[index].inputs.map { $0 == tensor ? wanted : $0 }
            nodes[index].outputs = nodes[index].outputs.map { $0 == tensor ? wanted : $0 }
        }
    }
}
