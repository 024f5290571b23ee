import Dispatch
import ModelFormat
import CoreMLSchema
import Protobuf
import Threads

/// Writes weight tensors as `WeightParams`: float32 values pointing at the
/// weights' own memory (or streamed as they are computed), float16 values
/// converted as they are streamed to the file, or quantized values computed
/// before packing, on every core (`quantizeWeights`).
///
/// Which: the precision asked of the writer (`--precision`,
/// `--quantize-weights`), else the one each tensor was stored in. Only the
/// fields Core ML reads quantized (`channels` given: convolution, inner
/// product, batch norm, scale, bias, load constant) are quantized; the
/// others stay float (float16 if they were so).
extension SpecBuilder {
    /// A dense layer's weights and optional bias (its `hasBias` flag and
    /// field left unset without one). `channels`: how the weights split
    /// for per-channel quantization (nil: the layer keeps them float); a
    /// quantized bias has one scale, as Core ML requires.
    func weightsAndBias(_ weights: Weights, _ bias: Weights?, channels: ChannelLayout?, _ weightsField: inout UnsafeMutablePointer<MLWeights>?,
                        _ hasBias: inout protobuf_c_boolean, _ biasField: inout UnsafeMutablePointer<MLWeights>?) {
        weightsField = self.weights(weights, channels: channels)
        guard let bias else { return }
        hasBias = 1
        biasField = self.weights(bias, "bias", channels: channels == nil ? nil : .whole(bias.count))
    }

    /// A shape field and the tensor of that shape (scale, bias and
    /// load-constant layers), which Core ML may hold quantized with one scale.
    func shaped(_ shape: [Int], _ values: Weights, _ what: String, _ count: inout Int, _ dimensions: inout UnsafeMutablePointer<UInt64>?)
        -> UnsafeMutablePointer<MLWeights> {
        (count, dimensions) = uint64s(shape)
        return weights(values, what, channels: .whole(values.count))
    }

    /// The WeightParams of `weights`, the layer's field `what` (named in
    /// errors); `channels` says how a quantizable field splits into
    /// channels (nil: Core ML keeps the field float); `float32Only` for a
    /// field Core ML reads only as float32 values (layer normalization's).
    func weights(_ weights: Weights, _ what: String = "weights", channels: ChannelLayout? = nil,
                 float32Only: Bool = false) -> UnsafeMutablePointer<MLWeights> {
        retain(weights)
        let params: UnsafeMutablePointer<MLWeights> = new(core_ml__specification__weight_params__init)
        let count = weights.isLoaded ? weights.count : 0
        guard count > 0 else { return params }
        switch float32Only ? .float32 : storage(of: weights, quantizable: channels != nil) {
        case .float16:
            weightsVersion = max(weightsVersion, 2)
            params.pointee.float16value = ProtobufCBinaryData(len: 2 * count, data: halfPlaceholder(weights, what))
        case .quantized(let bits, let mode):
            weightsVersion = max(weightsVersion, 3)
            params.pointee.quantization = quantized(weights, what, into: params, bits: bits, mode: mode, channels: channels!)
        default:
            params.pointee.n_floatvalue = count
            params.pointee.floatvalue = floatValues(weights)
        }
        return params
    }

    /// How `weights` are stored: as asked, or as they were; quantized only
    /// where the field allows it.
    private func storage(of weights: Weights, quantizable: Bool) -> Precision {
        switch precision ?? weights.storedPrecision {
        case .float16: .float16
        case .float32, .float64: .float32
        case .quantized(let bits, let mode): quantizable ? .quantized(bits: bits, mode) : weights.storedPrecision == .float16 ? .float16 : .float32
        }
    }

    /// The weights' own memory, or a placeholder for weights computed as
    /// they are written.
    private func floatValues(_ weights: Weights) -> UnsafeMutablePointer<Float>? {
        guard weights.isComputed else { return UnsafeMutablePointer(mutating: weights.unsafeBuffer.baseAddress) }
        let placeholder = streamed.placeholder(length: 4 * weights.count, pieces: weights.chunkCount, finished: weights.releaseSource) { index, write in
            try weights.withChunk(index) { start, values in try write(UnsafeRawBufferPointer(values), 4 * start) }
        }
        return placeholder.assumingMemoryBound(to: Float.self)
    }

    /// A placeholder for the weights as float16, converted piece by piece
    /// as the file is written. A finite value that float16 cannot hold
    /// (65520 or more in magnitude) stops the writing with an error
    /// naming the layer, the field `what` and the value's place in it.
    private func halfPlaceholder(_ weights: Weights, _ what: String) -> UnsafeMutablePointer<UInt8> {
        let layer = layerName
        let placeholder = streamed.placeholder(length: 2 * weights.count, pieces: weights.pieceCount(size: Self.halfPiece),
                                               finished: weights.releaseSource) { index, write in
            try weights.withPiece(index, size: Self.halfPiece) { first, part in
                var halves = [UInt16](repeating: 0, count: part.count)
                for (offset, value) in part.enumerated() {
                    let bits = value.halfBits
                    if bits & 0x7fff == 0x7c00, value.isFinite {
                        throw ModelError("layer '\(layer)', its \(what): value \(first + offset + 1) of \(weights.count) is \(value), "
                                         + "beyond float16's range (largest 65504); keep this model in float32")
                    }
                    halves[offset] = bits.littleEndian
                }
                try halves.withUnsafeBytes { try write($0, 2 * first) }
            }
        }
        return placeholder.assumingMemoryBound(to: UInt8.self)
    }

    /// Values per piece when weights in memory are converted to float16.
    static let halfPiece = 1 << 16

    /// QuantizationParams for `weights` with room for its results, and the
    /// job that fills them (and `params.rawValue`) in `quantizeWeights`.
    private func quantized(_ weights: Weights, _ what: String, into params: UnsafeMutablePointer<MLWeights>, bits: Int, mode: QuantizationMode,
                           channels: ChannelLayout) -> UnsafeMutablePointer<CoreML__Specification__QuantizationParams> {
        let quantization: UnsafeMutablePointer<CoreML__Specification__QuantizationParams> = new(core_ml__specification__quantization_params__init)
        quantization.pointee.numberofbits = UInt64(bits)
        let bytes = (weights.count * bits + 7) / 8
        params.pointee.rawvalue = ProtobufCBinaryData(len: bytes, data: try! arena.allocate(UInt8.self, count: bytes))
        if mode.usesLookupTable {
            let table: UnsafeMutablePointer<CoreML__Specification__LookUpTableQuantizationParams> =
                new(core_ml__specification__look_up_table_quantization_params__init)
            table.pointee.n_floatvalue = 1 << bits
            table.pointee.floatvalue = try! arena.allocate(Float.self, count: 1 << bits)
            quantization.pointee.quantization_type_case = CORE_ML__SPECIFICATION__QUANTIZATION_PARAMS__QUANTIZATION_TYPE_LOOKUP_TABLE_QUANTIZATION
            quantization.pointee.lookuptablequantization = table
        } else {
            let linear: UnsafeMutablePointer<CoreML__Specification__LinearQuantizationParams> =
                new(core_ml__specification__linear_quantization_params__init)
            (linear.pointee.n_scale, linear.pointee.n_bias) = (channels.channels, channels.channels)
            linear.pointee.scale = try! arena.allocate(Float.self, count: channels.channels)
            linear.pointee.bias = try! arena.allocate(Float.self, count: channels.channels)
            quantization.pointee.quantization_type_case = CORE_ML__SPECIFICATION__QUANTIZATION_PARAMS__QUANTIZATION_TYPE_LINEAR_QUANTIZATION
            quantization.pointee.linearquantization = linear
        }
        pendingQuantizations.append(PendingQuantization(layer: layerName, what: what, weights: weights, params: params, bits: bits, mode: mode,
                                                        channels: channels))
        return quantization
    }

    /// Computes every quantized tensor of the model, several at once, into
    /// the space `weights` set aside. Computed weights are produced into a
    /// buffer of their own and let go after, so no more than a tensor per
    /// core is ever in memory as floats.
    /// - Throws: `ModelError` naming the first layer whose weights cannot
    ///   be quantized (NaN or infinite values).
    func quantizeWeights() throws {
        let jobs = pendingQuantizations
        let lock = Lock()
        nonisolated(unsafe) var failures: [Int: Quantizer.Failure] = [:]
        nonisolated(unsafe) var done = 0
        WorkProgress.report("quantizing weights", done: 0, total: jobs.count, unit: "tensors")
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            let failure = jobs[index].run()
            lock.locked {
                if let failure { failures[index] = failure }
                done += 1
                WorkProgress.report("quantizing weights", done: done, total: jobs.count, unit: "tensors")
            }
        }
        WorkProgress.finished()
        if let (index, failure) = failures.min(by: { $0.key < $1.key }) {
            throw ModelError("layer '\(jobs[index].layer)', its \(jobs[index].what): cannot be quantized: \(failure.message)")
        }
    }
}

/// One quantizable tensor waiting for `SpecBuilder.quantizeWeights`.
struct PendingQuantization: @unchecked Sendable {
    let layer: String
    /// The layer's field (`weights`, `bias`, `gamma`...), for errors.
    let what: String
    let weights: Weights
    /// Sized for the result: `rawValue`, and the scale / bias or table arrays.
    let params: UnsafeMutablePointer<MLWeights>
    let bits: Int
    let mode: QuantizationMode
    let channels: ChannelLayout

    /// Quantizes the weights into `params`; the reason when it cannot.
    func run() -> Quantizer.Failure? {
        let packed = UnsafeMutableRawBufferPointer(start: params.pointee.rawvalue.data, count: params.pointee.rawvalue.len)
        let mapping: QuantizationMapping
        do {
            mapping = try weights.withValuesOnce { values throws(Quantizer.Failure) in
                try Quantizer.quantize(values, bits: bits, mode: mode, layout: channels, into: packed)
            }
        } catch {
            return error
        }
        let quantization = params.pointee.quantization!.pointee
        switch mapping {
        case .linear(let scale, let bias):
            quantization.linearquantization.pointee.scale.update(from: scale, count: scale.count)
            quantization.linearquantization.pointee.bias.update(from: bias, count: bias.count)
        case .lookupTable(let table):
            quantization.lookuptablequantization.pointee.floatvalue.update(from: table, count: table.count)
        }
        return nil
    }

}

extension Weights {
    /// Calls `body` with the values: in memory, or computed chunk by chunk
    /// into a buffer that goes away after (computed values are not kept, as
    /// `withUnsafeBufferPointer` keeps them: a writer reads each tensor once).
    func withValuesOnce<R>(_ body: (UnsafeBufferPointer<Float>) throws(Quantizer.Failure) -> R) throws(Quantizer.Failure) -> R {
        guard isComputed else { return try body(unsafeBuffer) }
        let values = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
        defer { values.deallocate() }
        for chunk in 0..<chunkCount {
            withChunk(chunk) { start, part in _ = UnsafeMutableBufferPointer(rebasing: values[start..<start + part.count]).initialize(from: part) }
        }
        releaseSource()
        return try body(UnsafeBufferPointer(values))
    }
}
