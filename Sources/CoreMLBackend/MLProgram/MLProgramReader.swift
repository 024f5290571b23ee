#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO
import ModelFormat
import CoreMLSchema
import Protobuf

/// Reads an ML Program package back into a `Model`: the inverse of
/// `MLProgramWriter` for its slice (`ProgramRaising`), so that the runtime
/// can run what the package computes; it also reads the forms coremltools
/// writes for torch and Keras classifiers (`ForeignProgramTests`). A program
/// holding an operation or form it does not know is refused by name, as is
/// a pipeline other than a detector's.
public enum MLProgramReader {
    /// The package's Model message, and its weights folder.
    static func paths(of package: String) -> (model: String, weights: String) {
        let data = FileSystem.path(of: "com.apple.CoreML", in: FileSystem.path(of: "Data", in: package))
        return (FileSystem.path(of: "model.mlmodel", in: data), FileSystem.path(of: "weights", in: data))
    }

    /// The bytes of the package at `path`: its Model message and weight file.
    /// - Throws: `FileError` when either cannot be opened.
    public static func byteCount(of path: String) throws -> Int {
        let (model, weights) = paths(of: path)
        return try [model, FileSystem.path(of: MLProgramWriter.weightsFileName, in: weights)].reduce(0) { total, file in
            let (descriptor, size) = try ReadableFile.open(file)
            close(descriptor)
            return total + size
        }
    }

    /// Reads the package folder at `path`.
    /// - Throws: `ModelFileError` naming the file and what in it cannot be read.
    public static func read(from path: String) throws -> CoreMLFile {
        let (modelPath, weightsPath) = paths(of: path)
        return try ModelFileError.reading(modelPath) {
            let file = try MappedFile(path: modelPath)
            let weights = BlobReader(folder: weightsPath)
            let decoded = try BinaryDecoder.decode(MLModel.self, descriptor: CoreMLReader.descriptorOfModel, bytes: file.bytes, owner: file,
                                                   options: DecodeOptions())
            let reader = SpecReader(decoded: decoded)
            let spec = decoded.root
            if spec.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_PIPELINE, let pipeline = spec.pointee.pipeline {
                let stages = CArrays.buffer(pipeline.pointee.models, pipeline.pointee.n_models)
                if stages.last??.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_NON_MAXIMUM_SUPPRESSION {
                    return try reader.programDetector(spec, blobs: weights)
                }
                return try reader.programChain(spec, blobs: weights)
            }
            guard spec.pointee.type_case == CORE_ML__SPECIFICATION__MODEL__TYPE_ML_PROGRAM, let program = spec.pointee.mlprogram else {
                throw reader.fail("the package's model is not an ML program or a detector pipeline holding one", at: spec)
            }
            let (model, facts) = try reader.program(program, description: spec.pointee.description, blobs: weights)
            return CoreMLFile(specificationVersion: Int(spec.pointee.specificationversion), model: model,
                              featureTypes: reader.featureTypes(spec.pointee.description!), program: facts)
        }
    }
}

/// The float32, float16, uint8 and int8 blobs of a package's weight files (MIL blob
/// storage, `BlobFile`), borrowed from the mapped files, every record
/// checked against its bounds. A blob names its file
/// (`@model_path/weights/weight.bin`, coremltools' pipelines
/// `0-weight.bin`, ...): each is opened when first named, and only a file
/// of the package's weights folder is.
final class BlobReader {
    struct Failure: Error, CustomStringConvertible, Sendable {
        var description: String
    }

    static let prefix = "@model_path/weights/"
    let folder: String
    /// The files opened, by their names in the weights folder, in the order first named.
    private(set) var files: [(name: String, file: MappedFile)] = []

    init(folder: String) {
        self.folder = folder
    }

    /// The name in the weights folder of the file `reference` (a blob's
    /// file name) names; nil for one that names no file there.
    static func fileName(_ reference: String) -> String? {
        let name = reference.hasPrefix(prefix) ? String(reference.dropFirst(prefix.count)) : ""
        return name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\0") ? nil : name
    }

    /// The weight file `reference` (a blob's file name) names, mapped.
    func file(_ reference: String) throws -> MappedFile {
        guard let name = Self.fileName(reference) else {
            throw Failure(description: "the blob file '\(reference)' is not a file of the package's weights folder (\(Self.prefix)NAME)")
        }
        if let opened = files.first(where: { $0.name == name }) { return opened.file }
        let file = try MappedFile(path: FileSystem.path(of: name, in: folder))
        files.append((name, file))
        return file
    }

    /// The blob whose metadata record is at `offset` of the weight file
    /// `reference` names, of one of `types` (MILBlob's data type numbers,
    /// each with the bytes the constant's values take in it and the
    /// alignment of its data), checked against the file.
    private func blob(in reference: String, at offset: UInt64, types: [UInt32: (size: UInt64, alignment: UInt64)])
        throws -> (file: MappedFile, type: UInt32, data: Int) {
        let file = try self.file(reference)
        let bytes = file.bytes
        func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }
        func u64(_ at: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian }
        guard bytes.count >= BlobFile.alignment, u32(4) == 2 else { throw Failure(description: "not MIL blob storage version 2") }
        guard let record = Int(exactly: offset), record % BlobFile.alignment == 0, record <= bytes.count - BlobFile.alignment else {
            throw Failure(description: "byte \(offset): no blob record there")
        }
        guard u32(record) == BlobFile.sentinel else { throw Failure(description: "byte \(offset): the blob record's sentinel is wrong") }
        let type = u32(record + 4)
        guard let expected = types[type] else {
            throw Failure(description: "byte \(offset): the blob is of data type \(type), not the constant's (\(types.keys.sorted()))")
        }
        let size = u64(record + 8), data = u64(record + 16)
        guard size == expected.size, data % expected.alignment == 0, data <= UInt64(bytes.count), size <= UInt64(bytes.count) - data else {
            throw Failure(description: "byte \(offset): the blob's \(size) bytes at \(data) are not the \(expected.size) its constant declares within the file")
        }
        return (file, type, Int(data))
    }

    /// The `count` integers of `type` whose metadata record is at `offset` of the weight file `reference` names,
    /// borrowed from the mapped file.
    func bytes(in reference: String, at offset: UInt64, count: Int, type: PackedInteger) throws -> ConstantBytes {
        let size = type.byteCount(count)
        let (file, _, data) = try blob(in: reference, at: offset, types: [type.blobType: (UInt64(size), 1)])
        // MILBlob counts a sub-byte blob's values by its unused bits (padding_size_in_bits): they must agree.
        let padding = file.bytes.loadUnaligned(fromByteOffset: Int(offset) + 24, as: UInt64.self).littleEndian
        guard type.bits == 8 || padding == UInt64(size * 8 - count * type.bits) else {
            throw Failure(description: "byte \(offset): the blob's \(padding) unused bits do not leave the \(count) values its constant declares")
        }
        return ConstantBytes(borrowing: UnsafeRawBufferPointer(rebasing: file.bytes[data..<data + size]), owner: file, type: type, count: count)
    }

    /// The `count` values whose metadata record is at `offset` of the weight
    /// file `reference` names (float16 ones made float32).
    func floats(in reference: String, at offset: UInt64, count: Int) throws -> Weights {
        let (file, type, data) = try blob(in: reference, at: offset, types: [BlobFile.float32Type: (UInt64(count) * 4, 4),
                                                                              BlobFile.float16Type: (UInt64(count) * 2, 2)])
        let bytes = file.bytes
        if type == BlobFile.float16Type {
            // Widened when the values are first needed (a summary needs none: a float16 package's weights are not
            // doubled in memory to be inspected or read back after writing).
            let address = UInt(bitPattern: bytes.baseAddress!.advanced(by: data))  // within `file`, which the producer keeps
            let producer = WeightProducer(count: count, rowLength: 1) { [file] start, target in
                withExtendedLifetime(file) {
                    let halfs = UnsafePointer<UInt16>(bitPattern: address)!
                    for index in target.indices { target[index] = HalfRounding.value(UInt16(littleEndian: halfs[start + index])) }
                }
            }
            var weights = Weights(producer: producer)
            weights.storedPrecision = .float16
            return weights
        }
        let start = bytes.baseAddress!.advanced(by: data).assumingMemoryBound(to: Float.self)
        return Weights(borrowing: UnsafeBufferPointer(start: start, count: count), owner: file)
    }
}
