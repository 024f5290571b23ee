import Dispatch
import ModelFormat
import Protobuf
import Threads

/// Compressed constants as coremltools writes them, each of 10 values or
/// more a blob of the weight file (levels as their integer type, scales and
/// tables in the compute precision):
/// - for iOS 16 (opset CoreML6): `constexpr_affine_dequantize` (uint8
///   levels and zero points per output channel) or `constexpr_lut_to_dense`
///   (one table, the indices packed in a byte vector), their parameters the
///   operation's attributes (as for a `const`);
/// - for iOS 18 (CoreML8, `ProgramOptions.writesBlockwise`):
///   `constexpr_blockwise_shift_scale` (int8 or int4 levels of a symmetric
///   mode without an offset; uint8 or uint4 levels with their zero points
///   as an offset of their type; a scale per output channel, or per block
///   along the input axis) or `constexpr_lut_to_dense` (indices of a uint1
///   to uint8 type shaped as the constant, a table per group of output
///   channels), their parameters bound to the operation's inputs.
/// The operations and their blobs take their places as the program is
/// built; the values are computed after, several constants at once
/// (`compressPending`), as the NeuralNetwork writer quantizes.
extension ProgramBuilder {
    /// coremltools' `OptimizationConfig` default `weight_threshold`:
    /// constants of 2048 values or more are compressed, smaller ones kept.
    static let compressionThreshold = 2048

    /// The constant `base` of `weights` shaped `shape`, to be compressed to
    /// `bits` by `mode` (which `ProgramOptions.refusal` accepted) at the
    /// options' granularity; nil when its blocks or groups do not divide
    /// the constant's axis (it stays float, as coremltools leaves it).
    /// - Returns: the operation's output name.
    func compressedConstant(_ base: String, _ weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode) -> String? {
        let table = mode.usesLookupTable, blockwise = options.writesBlockwise
        guard let blocks = options.granularity.blocks(of: shape, lookupTable: table) else { return nil }
        let name = freshName(base), runs = blocks.reduce(1, *)
        // Every part's size is known now: the blobs take their places in the file in the program's order.
        let parameters = table ? runs << bits : runs, width = float16 ? 2 : 4
        let reserve = { (count: Int, size: Int) in count >= Self.blobThreshold ? self.blobs.reserve(size: size) : nil }
        let dataType = blockwise && !table ? PackedInteger(bits: bits, signed: mode == .linearSymmetric) : table ? .unsigned(bits) : .uint8
        let offsetType = table || (blockwise && dataType.signed) ? nil : dataType
        let job = PendingCompression(name: name, weights: weights, shape: shape, bits: bits, mode: mode, blocks: blocks, dataType: dataType,
                                     offsetType: offsetType, levelsBlob: blobs.reserve(size: dataType.byteCount(weights.count)),
                                     parametersBlob: reserve(parameters, parameters * width),
                                     offsetBlob: offsetType.flatMap { reserve(runs, $0.byteCount(runs)) })
        let type = table ? "constexpr_lut_to_dense" : blockwise ? "constexpr_blockwise_shift_scale" : "constexpr_affine_dequantize"
        append(type, name: name, inputs: [], output: spec.milTensorType(computeType, shape))
        job.operation = operations.last!
        pendingCompressions.append(job)
        return name
    }

    /// Computes every constant `compressedConstant` set aside, one per core
    /// at a time, and gives each operation its attributes and blobs. The
    /// first constant (in the program's order) that cannot be quantized
    /// (NaN, infinite, beyond float16's range in a float16 program, a scale
    /// the program cannot hold) sets `compressionFailure`.
    func compressPending() {
        let jobs = pendingCompressions, float16 = self.float16
        guard !jobs.isEmpty else { return }
        let lock = Lock()
        nonisolated(unsafe) var done = 0
        WorkProgress.report("compressing weights", done: 0, total: jobs.count, unit: "tensors")
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            jobs[index].run(float16: float16)
            lock.locked {
                done += 1
                WorkProgress.report("compressing weights", done: done, total: jobs.count, unit: "tensors")
            }
        }
        WorkProgress.finished()
        for job in jobs {
            switch job.result {
            case .success(let compressed)?:
                attach(compressed, to: job)
            case .failure(let failure)?:
                if compressionFailure == nil { compressionFailure = "constant '\(job.name)': cannot be quantized: \(failure.message)" }
            case nil:
                preconditionFailure("a compression not run")
            }
        }
        pendingCompressions = []
    }

    /// The operation's parameters from its computed parts (attributes in iOS 16's form, inputs in iOS 18's), and its
    /// blobs filled.
    private func attach(_ parts: CompressedParts, to job: PendingCompression) {
        let operation = job.operation!
        let blocks = job.blocks, runs = job.blocks.reduce(1, *)
        guard options.writesBlockwise else {
            // iOS 16 packs a table's indices in a uint8 vector.
            let levels = job.mode.usesLookupTable ? PackedInteger.uint8 : job.dataType
            blobs.fill(at: job.levelsBlob, with: .integers(parts.data, levels, count: parts.data.count))
            // Shape-less scale and zero point for a vector's one pair, as coremltools writes them.
            let vector = runs == 1 && !job.mode.usesLookupTable ? nil : [parts.parameters.count]
            let attributes: [(String, UnsafeMutablePointer<MILValue>)] = job.mode.usesLookupTable ? [
                ("indices", spec.milBlobValue(shape: [parts.data.count], offset: job.levelsBlob, dataType: PackedInteger.uint8.dataType)),
                ("lut", floatsValue(parts.parameters, shape: vector, name: job.name + "_lut", blob: job.parametersBlob)),
                ("shape", spec.milValue(.uint32s(job.shape.map { UInt32($0) }), shape: [job.shape.count])),
            ] : [
                ("quantized_data", spec.milBlobValue(shape: job.shape, offset: job.levelsBlob, dataType: levels.dataType)),
                ("zero_point", integersValue(parts.offsets!, .uint8, shape: vector, blob: job.offsetBlob)),
                ("scale", floatsValue(parts.parameters, shape: vector, name: job.name + "_scale", blob: job.parametersBlob)),
                ("axis", spec.milValue(.ints([0]), shape: nil)),
            ]
            let named = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes).compactMap { $0 }  // the name
            (operation.pointee.n_attributes, operation.pointee.attributes) = spec.array(attributes.map { spec.milEntry($0.0, $0.1) } + named)
            return
        }
        blobs.fill(at: job.levelsBlob, with: .integers(parts.data, job.dataType, count: job.weights.count))
        let data = spec.milBlobValue(shape: job.shape, offset: job.levelsBlob, dataType: job.dataType.dataType)
        var inputs: [(String, UnsafeMutablePointer<MILValue>)]
        if job.mode.usesLookupTable {
            inputs = [("indices", data),
                      ("lut", floatsValue(parts.parameters, shape: blocks + [1 << job.bits, 1], name: job.name + "_lut", blob: job.parametersBlob))]
        } else {
            inputs = [("data", data), ("scale", floatsValue(parts.parameters, shape: blocks, name: job.name + "_scale", blob: job.parametersBlob))]
            if let offsets = parts.offsets, let type = job.offsetType { inputs.append(("offset", integersValue(offsets, type, shape: blocks, blob: job.offsetBlob))) }
        }
        setInputs(of: operation, inputs.map { ($0.0, [binding($0.1)]) })
    }

    /// Integers of `type` (one each in `values`): in their reserved blob (10 values or more, as coremltools stores
    /// them), else immediate of `shape` (nil: a scalar).
    private func integersValue(_ values: [UInt8], _ type: PackedInteger, shape: [Int]?, blob: Int?) -> UnsafeMutablePointer<MILValue> {
        let packed = type.pack(values)
        guard let blob else { return spec.milValue(.integers(packed, type), shape: shape) }
        blobs.fill(at: blob, with: .integers(packed, type, count: values.count))
        return spec.milBlobValue(shape: shape ?? [values.count], offset: blob, dataType: type.dataType)
    }

    /// Floats in the compute precision: in their reserved blob (10 values or more), else immediate of `shape` (nil:
    /// a scalar).
    private func floatsValue(_ values: [Float], shape: [Int]?, name: String, blob: Int?) -> UnsafeMutablePointer<MILValue> {
        if float16, compressionFailure == nil, values.contains(where: HalfRounding.overflows) {
            compressionFailure = HalfRounding.overflowError(constant: name).message
        }
        guard let blob else { return spec.milValue(float16 ? .halfs(HalfRounding.bits(values)) : .floats(values), shape: shape) }
        blobs.fill(at: blob, with: .floats(Weights(values), float16: float16, name: name))
        return spec.milBlobValue(shape: shape ?? [values.count], offset: blob, float16: float16)
    }
}

/// A compressed constant's parts as the file holds them: its levels (or
/// indices) packed as their type, its scales (or tables), and the zero
/// points of a mode with an offset, one a byte.
struct CompressedParts {
    let data: [UInt8]
    let parameters: [Float]
    let offsets: [UInt8]?
}

/// A constant `ProgramBuilder.compressedConstant` set aside: what to
/// compress, where its operation and blobs are, and once run, the result.
final class PendingCompression: @unchecked Sendable {
    // Sendable: `result` is written by the one thread that runs the job, read after every job has run.
    let name: String, weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode
    /// How many blocks along each axis have their own scale or table (`CompressionGranularity.blocks`).
    let blocks: [Int]
    /// The type of the levels (or indices), and of the offset (nil: none).
    let dataType: PackedInteger, offsetType: PackedInteger?
    /// The metadata offsets of its blobs: the levels (always: 2048 values or more), the scales or
    /// tables and the offsets when they are blobs.
    let levelsBlob: Int, parametersBlob: Int?, offsetBlob: Int?
    var operation: UnsafeMutablePointer<MILOperation>?
    private(set) var result: Result<CompressedParts, Quantizer.Failure>?

    init(name: String, weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode, blocks: [Int], dataType: PackedInteger,
         offsetType: PackedInteger?, levelsBlob: Int, parametersBlob: Int?, offsetBlob: Int?) {
        (self.name, self.weights, self.shape, self.bits, self.mode, self.blocks) = (name, weights, shape, bits, mode, blocks)
        (self.dataType, self.offsetType) = (dataType, offsetType)
        (self.levelsBlob, self.parametersBlob, self.offsetBlob) = (levelsBlob, parametersBlob, offsetBlob)
    }

    /// Compresses the weights (computed ones produced into a buffer that goes away after) and packs the levels as
    /// their type: a signed type's are the levels less the zero point, as two's complement.
    func run(float16: Bool) {
        let (bits, mode, runs, dataType, offsetType) = (self.bits, self.mode, blocks.reduce(1, *), self.dataType, self.offsetType)
        result = Result { () throws(Quantizer.Failure) -> CompressedParts in
            let compressed = try weights.withValuesOnce { values throws(Quantizer.Failure) in
                // Read back in float16, as a float16 program's constants are: none beyond its range (`HalfRounding.overflows`).
                if float16, let index = values.firstIndex(where: HalfRounding.overflows) {
                    throw Quantizer.Failure(message: "value \(index + 1) of \(values.count) is \(values[index]), beyond float16's range (65504)")
                }
                return try Quantizer.compressForProgram(values, bits: bits, mode: mode, runs: runs) { scale in
                    // As the file holds it: a float16 scale (one that would round to zero its smallest subnormal).
                    guard float16 else { return scale }
                    let stored = HalfRounding.value(HalfRounding.bits(scale, count: 1))
                    return stored.isFinite ? stored : nil
                }
            }
            switch compressed {
            case .lookupTable(let packed, let tables):
                return CompressedParts(data: packed, parameters: tables, offsets: nil)
            case .affine(let levels, let scale, let zeroPoint):
                guard dataType.signed else {
                    return CompressedParts(data: dataType.bits == 8 ? levels : dataType.pack(levels), parameters: scale, offsets: offsetType == nil ? nil : zeroPoint)
                }
                // Symmetric: every run's zero point is 2^(bits-1); level - 2^(bits-1) is the level with its top bit flipped.
                let flip = UInt8(1 << (bits - 1))
                let signed = levels.map { $0 ^ flip }
                return CompressedParts(data: dataType.bits == 8 ? signed : dataType.pack(signed), parameters: scale, offsets: nil)
            }
        }
    }
}
