import CProtobufC
import FileIO
import ModelFormat
import CoreMLSchema
import Protobuf

/// Writes a `Model` as a Core ML model file (`.mlmodel`): the protobuf
/// `Model` message holding a NeuralNetwork, or a NeuralNetworkClassifier
/// when the model has class labels.
public enum CoreMLWriter {
    /// Validates `model` and writes it to `path` atomically: on any failure
    /// no file is left behind and an existing file is untouched. The files
    /// the model was made from (`inputs`) are never replaced; neither is
    /// anything but a regular file or a link (`AtomicFile`).
    /// The file is written at the lowest specification version the model
    /// can be expressed in, and not below `minimumSpecificationVersion`
    /// (`SpecificationVersion`: below 4, clip layers are written as older ones).
    /// `beforeCommit` gets the complete file's temporary path before it is
    /// renamed into place (to read it back); if it throws, nothing is
    /// written. (`AtomicFile` tells when the file is synced to disk.)
    /// Weights are stored in `precision` (float16, or quantized where Core
    /// ML allows it: `WeightEncoding`); nil keeps each tensor's own
    /// `storedPrecision`.
    /// - Throws: `ModelError` for a model that does not hold together (or
    ///   weights the precision cannot hold), `FileError` when the file
    ///   cannot be written.
    public static func write(_ model: Model, to path: String, inputs: [String] = [], minimumSpecificationVersion: Int32 = 1,
                             precision: Precision? = nil, beforeCommit: ((String) throws -> Void)? = nil) throws {
        let (builder, spec) = try message(model, precision: precision, minimumSpecificationVersion: minimumSpecificationVersion) {
            try AtomicFile.checkTarget(path, inputs: inputs)
        }
        try storing(to: path) {
            try builder.quantizeWeights()
            try withExtendedLifetime(builder) {
                try spec.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) {
                    try MessageFile.write($0, to: path, inputs: inputs, streamed: builder.streamed, beforeCommit: beforeCommit)
                }
            }
        }
    }

    /// Runs `body`, which stores the weights in the file at `path`: a
    /// value the precision cannot hold (a `ModelError` naming the layer,
    /// its field and the value) is an error of that file.
    private static func storing<R>(to path: String, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as ModelError {
            throw ModelError("\(path): \(error.message)")
        }
    }
}

extension CoreMLWriter {
    /// Validates `model` and writes it as the file for `path` in `set`
    /// (one of its targets, checked by the set), as `write(_:to:...)`
    /// does: not in place before the set's commit, and on any failure no
    /// file of the set is.
    /// - Returns: the temporary file's path, to read it back.
    @discardableResult
    public static func write(_ model: Model, to path: String, in set: AtomicFileSet, minimumSpecificationVersion: Int32 = 1,
                             precision: Precision? = nil) throws -> String {
        let (builder, spec) = try message(model, precision: precision, minimumSpecificationVersion: minimumSpecificationVersion)
        return try storing(to: path) {
            try builder.quantizeWeights()
            return try withExtendedLifetime(builder) {
                try spec.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) {
                    try MessageFile.write($0, to: path, in: set, streamed: builder.streamed)
                }
            }
        }
    }

    /// The size in bytes of the file `write` would write for `model` with
    /// `precision` (float32 to compare a compressed file with); nothing is
    /// computed or written.
    /// - Throws: `ModelError` for a model that does not hold together.
    public static func fileSize(of model: Model, precision: Precision? = nil, minimumSpecificationVersion: Int32 = 1) throws -> Int {
        let (builder, spec) = try message(model, precision: precision, minimumSpecificationVersion: minimumSpecificationVersion)
        return withExtendedLifetime(builder) {
            spec.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) { protobuf_c_message_get_packed_size($0) }
        }
    }

    /// The Model message of `model`, validated, at the lowest version it
    /// can be written in (`checks` run after validation, before any work),
    /// quantized weights not yet computed (`SpecBuilder.quantizeWeights`).
    private static func message(_ model: Model, precision: Precision?, minimumSpecificationVersion: Int32,
                                checks: () throws -> Void = {}) throws -> (SpecBuilder, UnsafeMutablePointer<MLModel>) {
        if case .quantized(let bits, let mode) = precision, !(1...8).contains(bits) || mode == .linearSymmetric && bits != 8 {
            throw ModelError("Core ML stores weights quantized to 1 to 8 bits (linear-symmetric: 8), not \(bits) bits \(mode.rawValue)")
        }
        var model = model
        let shapes = try model.validate()
        model = SpecificationVersion.mapLayers(model)
        if model.detector != nil {
            // The pipeline states the rows' count (`detectorPipeline`), also for a model built in code without output shapes.
            for index in model.outputs.indices { model.outputs[index].shape = shapes[model.outputs[index].name]?.dimensions ?? [] }
        }
        try SpecificationVersion.checkWritable(model, shapes: shapes)
        try checks()
        let version = SpecificationVersion.chosen(for: model, minimum: minimumSpecificationVersion)
        let builder = SpecBuilder(precision: precision)
        let spec = builder.model(SpecificationVersion.lowered(model, for: version), version: version)
        builder.setVersion(max(version, builder.weightsVersion), of: spec)
        return (builder, spec)
    }
}

extension SpecBuilder {
    /// The Model message of `model` at specification `version` (lowered
    /// for it already): a neural network, or for a detector the pipeline
    /// of the network and its non-maximum suppression.
    func model(_ model: Model, version: Int32) -> UnsafeMutablePointer<MLModel> {
        let network = neuralNetwork(model, version: version)
        guard let detector = model.detector else { return network }
        return detectorPipeline(detector, network: network, model: model)
    }

    /// The neural network (or neural network classifier) message of `model`.
    func neuralNetwork(_ model: Model, version: Int32) -> UnsafeMutablePointer<MLModel> {
        let spec: UnsafeMutablePointer<MLModel> = new(core_ml__specification__model__init)
        spec.pointee.specificationversion = version
        arrayMapping = SpecificationVersion.arrayMapping(model, at: version)

        spec.pointee.description = modelDescription(model)

        names = FreshNames(model)
        let layers = array(model.nodes.flatMap(layers))
        let preprocessing = array(self.preprocessing(model.inputs))
        if let classifier = model.classifier {
            let network: UnsafeMutablePointer<MLClassifier> = new(core_ml__specification__neural_network_classifier__init)
            (network.pointee.n_layers, network.pointee.layers) = layers
            (network.pointee.n_preprocessing, network.pointee.preprocessing) = preprocessing
            classLabels(classifier.labels, strings: {
                (network.pointee.class_labels_case, network.pointee.stringclasslabels) = (CORE_ML__SPECIFICATION__NEURAL_NETWORK_CLASSIFIER__CLASS_LABELS_STRING_CLASS_LABELS, $0)
            }, integers: {
                (network.pointee.class_labels_case, network.pointee.int64classlabels) = (CORE_ML__SPECIFICATION__NEURAL_NETWORK_CLASSIFIER__CLASS_LABELS_INT64_CLASS_LABELS, $0)
            })
            network.pointee.labelprobabilitylayername = string(classifier.probabilitiesName)
            if arrayMapping != .rank5 {
                network.pointee.arrayinputshapemapping = CORE_ML__SPECIFICATION__NEURAL_NETWORK_MULTI_ARRAY_SHAPE_MAPPING__EXACT_ARRAY_MAPPING
                network.pointee.imageinputshapemapping = CORE_ML__SPECIFICATION__NEURAL_NETWORK_IMAGE_SHAPE_MAPPING__RANK4_IMAGE_MAPPING
            }
            spec.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK_CLASSIFIER
            spec.pointee.neuralnetworkclassifier = network
        } else {
            let network: UnsafeMutablePointer<MLNeuralNetwork> = new(core_ml__specification__neural_network__init)
            (network.pointee.n_layers, network.pointee.layers) = layers
            (network.pointee.n_preprocessing, network.pointee.preprocessing) = preprocessing
            if arrayMapping != .rank5 {
                network.pointee.arrayinputshapemapping = CORE_ML__SPECIFICATION__NEURAL_NETWORK_MULTI_ARRAY_SHAPE_MAPPING__EXACT_ARRAY_MAPPING
                network.pointee.imageinputshapemapping = CORE_ML__SPECIFICATION__NEURAL_NETWORK_IMAGE_SHAPE_MAPPING__RANK4_IMAGE_MAPPING
            }
            spec.pointee.type_case = CORE_ML__SPECIFICATION__MODEL__TYPE_NEURAL_NETWORK
            spec.pointee.neuralnetwork = network
        }
        return spec
    }

    /// The model's interface: its inputs, the classifier's features and
    /// the outputs (arrays as `arrayType` maps them), and its metadata.
    func modelDescription(_ model: Model) -> UnsafeMutablePointer<MLModelDescription> {
        let description: UnsafeMutablePointer<MLModelDescription> = new(core_ml__specification__model_description__init)
        (description.pointee.n_input, description.pointee.input) = array(model.inputs.map(inputFeature))
        var outputs: [UnsafeMutablePointer<MLFeatureDescription>] = []
        if let classifier = model.classifier {
            outputs += classifierFeatures(classifier)
            description.pointee.predictedfeaturename = string(classifier.predictedFeatureName)
            description.pointee.predictedprobabilitiesname = string(classifier.probabilitiesName)
        }
        outputs += model.outputs.map { feature($0.name, $0.description, arrayType($0.shape)) }
        (description.pointee.n_output, description.pointee.output) = array(outputs)
        description.pointee.metadata = metadata(model.metadata)
        return description
    }
}
