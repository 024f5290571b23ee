import FileIO
import ModelFormat
import CoreMLSchema
import Protobuf

/// What a Core ML file declares to the apps that use it: its features,
/// which outputs a classifier fills, its metadata. Read from the model's
/// description alone, so any model file has one, also a model type or a
/// layer this toolkit does not read.
public struct CoreMLInterface: Equatable, Sendable {
    public struct Feature: Equatable, Sendable {
        public var name: String
        public var description: String
        public var type: StoredFeatureType
        public var isOptional: Bool

        public init(name: String, description: String = "", type: StoredFeatureType, isOptional: Bool = false) {
            self.name = name
            self.description = description
            self.type = type
            self.isOptional = isOptional
        }
    }

    public var specificationVersion: Int
    public var inputs: [Feature]
    /// A classifier's among them: its most likely class (`classLabel`) and
    /// its probabilities by class (`classLabelProbs`), typed as the file
    /// types them.
    public var outputs: [Feature]
    public var metadata: Metadata

    public init(specificationVersion: Int, inputs: [Feature], outputs: [Feature], metadata: Metadata = Metadata()) {
        (self.specificationVersion, self.inputs, self.outputs, self.metadata) = (specificationVersion, inputs, outputs, metadata)
    }
}

extension CoreMLReader {
    /// The interface of the model at `path` (a `.mlmodel`, or an ML Program
    /// package), weights not read.
    /// - Throws: as `read(from:)`: a `FileError`, or a `ModelFileError`
    ///   with the byte offset of what is missing or out of range.
    public static func interface(from path: String) throws -> CoreMLInterface {
        // A package's description is its model.mlmodel's (as Xcode generates the classes of an .mlpackage).
        let path = MLProgramWriter.isPackage(path) ? MLProgramReader.paths(of: path).model : path
        do {
            let file = try MappedFile(path: path)
            defer { file.releaseResidentPages() }
            return try interface(bytes: file.bytes, owner: file)
        } catch let error as DecodeError {
            throw ModelFileError(path: path, underlying: error)
        } catch let error as CoreMLFormatError {
            throw ModelFileError(path: path, underlying: error)
        }
    }
}

extension CoreMLReader {
    /// The interface of the model in `bytes`, which `owner` keeps alive.
    public static func interface(bytes: UnsafeRawBufferPointer, owner: AnyObject?) throws -> CoreMLInterface {
        let decoded = try BinaryDecoder.decode(MLModel.self, descriptor: descriptorOfModel, bytes: bytes, owner: owner,
                                               options: DecodeOptions(structureOnly: true))
        return try SpecReader(decoded: decoded).interface()
    }
}

extension SpecReader {
    func interface() throws -> CoreMLInterface {
        let spec = decoded.root
        guard let description = spec.pointee.description else {
            throw fail("the model has no description (inputs and outputs)", at: spec)
        }
        let version = Int(spec.pointee.specificationversion)
        guard version >= 1 else { throw fail("the model has no specification version", at: spec) }
        let inputs = try CArrays.buffer(description.pointee.input, description.pointee.n_input).map { try interfaceFeature($0, "input") }
        let outputs = try CArrays.buffer(description.pointee.output, description.pointee.n_output).map { try interfaceFeature($0, "output") }
        guard !inputs.isEmpty else { throw fail("the model has no inputs", at: description) }
        guard !outputs.isEmpty else { throw fail("the model has no outputs", at: description) }
        var seen = Set<String>()
        for feature in inputs + outputs where !seen.insert(feature.name).inserted {
            // An output may not repeat an input's name either (Core ML's validator).
            throw fail("two features are named '\(feature.name)'", at: description)
        }
        // A classifier names two of its outputs (Core ML's validator checks the same).
        for (text, what) in [(description.pointee.predictedfeaturename, "predicted feature"),
                             (description.pointee.predictedprobabilitiesname, "predicted probabilities")] {
            let name = CArrays.string(text)
            guard name.isEmpty || outputs.contains(where: { $0.name == name }) else {
                throw fail("the \(what) '\(name)' is not an output", at: description)
            }
        }
        return CoreMLInterface(specificationVersion: version, inputs: inputs, outputs: outputs,
                               metadata: metadata(description.pointee.metadata))
    }

    private func interfaceFeature(_ feature: UnsafeMutablePointer<MLFeatureDescription>?, _ role: String) throws -> CoreMLInterface.Feature {
        guard let feature else { throw fail("an \(role) is empty", at: nil) }
        let name = CArrays.string(feature.pointee.name)
        guard !name.isEmpty else { throw fail("an \(role) has no name", at: feature) }
        guard let type = storedFeatureType(feature.pointee.type) else {
            throw fail("\(role) '\(name)' has no type this toolkit knows (int64, double, string, image, multi-array, dictionary)", at: feature)
        }
        if case .image(_, let width, let height) = type, width <= 0 || height <= 0 || width > 1 << 16 || height > 1 << 16 {
            throw fail("image \(role) '\(name)' has the size \(width)x\(height)", at: feature)
        }
        return CoreMLInterface.Feature(name: name, description: CArrays.string(feature.pointee.shortdescription), type: type,
                                       isOptional: feature.pointee.type?.pointee.isoptional ?? 0 != 0)
    }
}
