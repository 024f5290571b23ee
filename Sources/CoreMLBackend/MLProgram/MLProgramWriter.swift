#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CProtobufC
import FileIO
import ModelFormat

/// Writes a `Model` as an ML Program package (`.mlpackage`), the folder
/// Xcode and coremltools write:
///
///     M.mlpackage/Manifest.json
///     M.mlpackage/Data/com.apple.CoreML/model.mlmodel       the Model message (mlProgram)
///     M.mlpackage/Data/com.apple.CoreML/weights/weight.bin  MIL blob storage (`BlobFile`)
///
/// The first slice of issue 36: float32 or float16 compute, image inputs, the map
/// operations `ProgramLowering` writes, classifiers, detectors (the root
/// model a pipeline holding the program: `programDetector`), and models
/// with tensor inputs (their rank-N operations: `ProgramLowering+Tensors`);
/// anything else is refused by name.
public enum MLProgramWriter {
    /// The package's file names, and the manifest's descriptions of them, as coremltools writes them.
    static let dataFolder = "Data", coreMLFolder = "com.apple.CoreML"
    static let modelName = "model.mlmodel", weightsFolderName = "weights", weightsFileName = "weight.bin"

    /// Validates `model` and writes it to the package folder `path`
    /// atomically (`AtomicFolder`): on any failure nothing is left behind
    /// and an existing package is untouched; a folder that is not a
    /// package is never replaced. `computePrecision`: float32, or float16
    /// as coremltools writes it (`ProgramBuilder`).
    /// - Throws: `ModelError` for a model that does not hold together or
    ///   that this slice cannot write (naming the operation), `FileError`
    ///   when the package cannot be written.
    /// - Parameter beforeCommit: called with the complete package's temporary folder before it is renamed into
    ///   place (to read it back); what it throws leaves nothing behind.
    /// - Parameter compression: a quantized precision for the constants of 2048 values or more, at `granularity`
    ///   (`ProgramBuilder+Compression`; needs iOS 16, or iOS 18 for 4-bit linear levels, 3-bit tables, blocks and
    ///   groups: `compressedSpecificationVersion(for:granularity:)` is the version the program is written at at least).
    /// - Parameter minimumSpecificationVersion: 6 (iOS 15, the default), 7 (iOS 16), 8 (iOS 17) or 9 (iOS 18; from 9
    ///   on compressed constants take iOS 18's forms).
    public static func write(_ model: Model, to path: String, inputs: [String] = [], computePrecision: Precision = .float32,
                             compression: Precision? = nil, granularity: CompressionGranularity = .perChannel,
                             minimumSpecificationVersion: Int32 = 6, beforeCommit: ((String) throws -> Void)? = nil) throws {
        guard computePrecision == .float32 || computePrecision == .float16 else {
            throw ModelError("\(option: .convertTo) computes in float32 or float16, not \(computePrecision.name)")
        }
        if let compression, let refusal = ProgramOptions.refusal(compressing: compression, granularity: granularity) { throw ModelError(refusal) }
        let version = max(minimumSpecificationVersion, compression.map { compressedSpecificationVersion(for: $0, granularity: granularity) }
                          ?? ProgramOptions.versions.lowerBound)
        guard ProgramOptions.versions.contains(version) else {
            throw ModelError("an ML program of specification \(version): this version writes specifications 6 (iOS 15) to 9 (iOS 18)")
        }
        let options = ProgramOptions(float16: computePrecision == .float16, specificationVersion: version, compression: compression,
                                     granularity: granularity)
        let shapes = try model.validate()
        let builder = SpecBuilder()
        let (spec, blobs) = try model.detector.map { try builder.programDetector(model, $0, shapes: shapes, options: options) }
            ?? builder.mlProgram(model, shapes: shapes, options: options)
        let bytes: [UInt8] = withExtendedLifetime(builder) {
            spec.withMemoryRebound(to: ProtobufCMessage.self, capacity: 1) { message in
                let size = protobuf_c_message_get_packed_size(message)
                return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
                    count = protobuf_c_message_pack(message, buffer.baseAddress!)
                }
            }
        }
        try AtomicFolder.write(to: path, inputs: inputs, isReplaceable: isPackage) { folder, commit in
            let data = FileSystem.path(of: dataFolder, in: folder)
            let coreML = FileSystem.path(of: coreMLFolder, in: data)
            let weights = FileSystem.path(of: weightsFolderName, in: coreML)
            try FileSystem.makeFolder(weights, intermediate: true)
            try writeFile(bytes, to: FileSystem.path(of: modelName, in: coreML))
            try withExtendedLifetime(builder) { try blobs.write(to: FileSystem.path(of: weightsFileName, in: weights), startingWriteback: commit == .synced) }
            try writeFile(Array(manifest().utf8), to: FileSystem.path(of: "Manifest.json", in: folder))
            try beforeCommit?(folder)
        }
    }

    /// Constants of this many values or more are compressed (coremltools' `weight_threshold`).
    public static let compressionThreshold = ProgramBuilder.compressionThreshold

    /// The specification versions programs are written at: 6 (iOS 15, opset CoreML5), 7 (iOS 16, CoreML6; compressed
    /// constants need it), 8 (iOS 17, CoreML7) and 9 (iOS 18, CoreML8).
    public static let specificationVersions = ProgramOptions.versions

    /// The oldest specification version whose program holds constants compressed to `precision` at `granularity`:
    /// 7 (iOS 16) for 8-bit linear levels and tables of 1, 2, 4, 6 or 8 bits per channel, else 9 (iOS 18).
    public static func compressedSpecificationVersion(for precision: Precision, granularity: CompressionGranularity = .perChannel) -> Int32 {
        ProgramOptions.specificationVersion(compressing: precision, granularity: granularity)
    }

    /// Why `precision` cannot compress a program's constants at `granularity` (nil: it can).
    public static func refusal(compressing precision: Precision, granularity: CompressionGranularity = .perChannel) -> String? {
        ProgramOptions.refusal(compressing: precision, granularity: granularity)
    }

    /// Checks that `path` may be written: absent, or a package none of
    /// `inputs` lies in (before any work is done).
    /// - Throws: `FileError` naming what is there.
    public static func checkTarget(_ path: String, inputs: [String]) throws {
        _ = try AtomicFolder.checkTarget(path, inputs: inputs, isReplaceable: isPackage)
    }

    /// Whether `path` is a model package (it holds a Manifest.json), which a new one may replace.
    public static func isPackage(_ path: String) -> Bool {
        FileSystem.kind(of: FileSystem.path(of: "Manifest.json", in: path)) == .regularFile
    }

    /// The manifest as ModelPackage.cpp writes it: format version 1.0.0,
    /// one entry per item keyed by a random UUID, the model the root.
    static func manifest() -> String {
        let model = uuid(), weights = uuid()
        func entry(_ id: String, description: String, name: String, path: String) -> String {
            """
                    "\(id)": {
                        "author": "com.apple.CoreML",
                        "description": "\(description)",
                        "name": "\(name)",
                        "path": "\(path)"
                    }
            """
        }
        return """
        {
            "fileFormatVersion": "1.0.0",
            "itemInfoEntries": {
        \(entry(model, description: "CoreML Model Specification", name: modelName, path: "\(coreMLFolder)/\(modelName)")),
        \(entry(weights, description: "CoreML Model Weights", name: weightsFolderName, path: "\(coreMLFolder)/\(weightsFolderName)"))
            },
            "rootModelIdentifier": "\(model)"
        }

        """
    }

    /// A random (version 4) UUID in its lower-case text form, as coremltools' manifests hold them.
    static func uuid() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { String($0, radix: 16, uppercase: false).leftPadded(to: 2) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    private static func writeFile(_ bytes: [UInt8], to path: String) throws {
        guard let stream = fopen(path, "wb") else { throw FileError(path: path, errno: errno, action: "cannot create") }
        let written = bytes.isEmpty ? 0 : fwrite(bytes, 1, bytes.count, stream)
        let closed = fclose(stream) == 0
        guard written == bytes.count, closed else { throw FileError(path: path, errno: errno, action: "cannot write") }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
