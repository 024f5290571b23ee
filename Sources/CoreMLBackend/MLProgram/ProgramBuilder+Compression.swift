import Dispatch
import ModelFormat
import Protobuf
import Threads

/// Compressed constants as coremltools writes them for iOS 16 (opset
/// CoreML6): a `constexpr_affine_dequantize` or `constexpr_lut_to_dense`
/// operation whose parameters are its attributes (as for a `const`; iOS 18
/// binds them as inputs), each of 10 values or more a blob of the weight
/// file: the levels uint8, the scale or table in the compute precision.
/// The operations and their blobs take their places as the program is
/// built; the values are computed after, several constants at once
/// (`compressPending`), as the NeuralNetwork writer quantizes.
extension ProgramBuilder {
    /// coremltools' `OptimizationConfig` default `weight_threshold`:
    /// constants of 2048 values or more are compressed, smaller ones kept.
    static let compressionThreshold = 2048

    /// The constant `base` of `weights` shaped `shape`, to be compressed to
    /// `bits` by `mode` (which `ProgramOptions.refusal` accepted); linear
    /// levels per slice of the first axis (a convolution's or linear's
    /// output channels), one scale for a vector.
    /// - Returns: the operation's output name.
    func compressedConstant(_ base: String, _ weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode) -> String {
        let name = freshName(base)
        let channels = mode.usesLookupTable ? 1 : shape.count >= 2 ? shape[0] : 1
        // Every part's size is known now: the blobs take their places in the file in the program's order.
        let levels = mode.usesLookupTable ? (weights.count * bits + 7) / 8 : weights.count
        let (parameters, width) = (mode.usesLookupTable ? 1 << bits : channels, float16 ? 2 : 4)
        let reserve = { (count: Int, size: Int) in count >= Self.blobThreshold ? self.blobs.reserve(size: size) : nil }
        let job = PendingCompression(name: name, weights: weights, shape: shape, bits: bits, mode: mode, channels: channels,
                                     levelsBlob: blobs.reserve(size: levels), parametersBlob: reserve(parameters, parameters * width),
                                     zeroPointBlob: mode.usesLookupTable ? nil : reserve(channels, channels))
        append(mode.usesLookupTable ? "constexpr_lut_to_dense" : "constexpr_affine_dequantize", name: name, inputs: [],
               output: spec.milTensorType(computeType, shape))
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

    /// The operation's attributes from its computed values, and its blobs filled.
    private func attach(_ compressed: CompressedConstant, to job: PendingCompression) {
        let attributes: [(String, UnsafeMutablePointer<MILValue>)]
        switch compressed {
        case .affine(let levels, let scale, let zeroPoint):
            blobs.fill(at: job.levelsBlob, with: .uint8s(levels))
            attributes = [
                ("quantized_data", spec.milBlobValue(shape: job.shape, offset: job.levelsBlob, dataType: MILData.uint8s([]).dataType)),
                ("zero_point", bytesValue(zeroPoint, blob: job.zeroPointBlob)),
                ("scale", floatsValue(scale, name: job.name + "_scale", blob: job.parametersBlob)),
                ("axis", spec.milValue(.ints([0]), shape: nil)),
            ]
        case .lookupTable(let packed, let table):
            attributes = [
                ("indices", bytesValue(packed, blob: job.levelsBlob)),
                ("lut", floatsValue(table, name: job.name + "_lut", blob: job.parametersBlob)),
                ("shape", spec.milValue(.uint32s(job.shape.map { UInt32($0) }), shape: [job.shape.count])),
            ]
        }
        let operation = job.operation!
        let named = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes).compactMap { $0 }  // the name
        (operation.pointee.n_attributes, operation.pointee.attributes) = spec.array(attributes.map { spec.milEntry($0.0, $0.1) } + named)
    }

    /// A uint8 scalar (one value), or vector: in its reserved blob (10 values or more, as coremltools stores it).
    private func bytesValue(_ bytes: [UInt8], blob: Int?) -> UnsafeMutablePointer<MILValue> {
        guard let blob else { return spec.milValue(.uint8s(bytes), shape: bytes.count == 1 ? nil : [bytes.count]) }
        blobs.fill(at: blob, with: .uint8s(bytes))
        return spec.milBlobValue(shape: [bytes.count], offset: blob, dataType: MILData.uint8s([]).dataType)
    }

    /// A float scalar (one value), or vector, in the compute precision: in its reserved blob (10 values or more).
    private func floatsValue(_ values: [Float], name: String, blob: Int?) -> UnsafeMutablePointer<MILValue> {
        if float16, compressionFailure == nil, values.contains(where: HalfRounding.overflows) {
            compressionFailure = HalfRounding.overflowError(constant: name).message
        }
        guard let blob else {
            return spec.milValue(float16 ? .halfs(HalfRounding.bits(values)) : .floats(values), shape: values.count == 1 ? nil : [values.count])
        }
        blobs.fill(at: blob, with: .floats(Weights(values), float16: float16, name: name))
        return spec.milBlobValue(shape: [values.count], offset: blob, float16: float16)
    }
}

/// A constant `ProgramBuilder.compressedConstant` set aside: what to
/// compress, where its operation and blobs are, and once run, the result.
final class PendingCompression: @unchecked Sendable {
    // Sendable: `result` is written by the one thread that runs the job, read after every job has run.
    let name: String, weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode, channels: Int
    /// The metadata offsets of its blobs: the levels (always: 2048 values or more), the scale or
    /// table and the zero point when they are blobs.
    let levelsBlob: Int, parametersBlob: Int?, zeroPointBlob: Int?
    var operation: UnsafeMutablePointer<MILOperation>?
    private(set) var result: Result<CompressedConstant, Quantizer.Failure>?

    init(name: String, weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode, channels: Int,
         levelsBlob: Int, parametersBlob: Int?, zeroPointBlob: Int?) {
        (self.name, self.weights, self.shape, self.bits, self.mode, self.channels) = (name, weights, shape, bits, mode, channels)
        (self.levelsBlob, self.parametersBlob, self.zeroPointBlob) = (levelsBlob, parametersBlob, zeroPointBlob)
    }

    /// Compresses the weights (computed ones produced into a buffer that goes away after).
    func run(float16: Bool) {
        let (bits, mode, channels) = (self.bits, self.mode, self.channels)
        result = Result { () throws(Quantizer.Failure) -> CompressedConstant in
            try weights.withValuesOnce { values throws(Quantizer.Failure) in
                // Read back in float16, as a float16 program's constants are: none beyond its range (`HalfRounding.overflows`).
                if float16, let index = values.firstIndex(where: HalfRounding.overflows) {
                    throw Quantizer.Failure(message: "value \(index + 1) of \(values.count) is \(values[index]), beyond float16's range (65504)")
                }
                return try Quantizer.compressForProgram(values, bits: bits, mode: mode, channels: channels) { scale in
                    // As the file holds it: a float16 scale (one that would round to zero its smallest subnormal).
                    guard float16 else { return scale }
                    let stored = HalfRounding.value(HalfRounding.bits(scale, count: 1))
                    return stored.isFinite ? stored : nil
                }
            }
        }
    }
}
