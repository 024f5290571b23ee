import ModelFormat

/// Compressed constants as coremltools writes them for iOS 16 (opset
/// CoreML6): a `constexpr_affine_dequantize` or `constexpr_lut_to_dense`
/// operation whose parameters are its attributes (as for a `const`; iOS 18
/// binds them as inputs), each of 10 values or more a blob of the weight
/// file: the levels uint8, the scale or table in the compute precision.
extension ProgramBuilder {
    /// coremltools' `OptimizationConfig` default `weight_threshold`:
    /// constants of 2048 values or more are compressed, smaller ones kept.
    static let compressionThreshold = 2048

    /// The constant `base` of `weights` shaped `shape`, compressed to `bits`
    /// by `mode` (which `ProgramOptions.refusal` accepted). Values that
    /// cannot be quantized (NaN, infinite) leave `compressionFailure` set.
    /// - Returns: the operation's output name.
    func compressedConstant(_ base: String, _ weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode) -> String {
        spec.retain(weights)
        let name = freshName(base)
        let float16 = self.float16
        let compressed: CompressedConstant
        do {
            compressed = try weights.withValuesOnce { values throws(Quantizer.Failure) in
                try Quantizer.compressForProgram(values, bits: bits, mode: mode, channels: shape.first ?? 1) { scale in
                    float16 ? HalfRounding.value(HalfRounding.bits(scale, count: shape.first ?? 1)) : scale
                }
            }
        } catch {
            if compressionFailure == nil { compressionFailure = "constant '\(name)': cannot be quantized: \(error.message)" }
            compressed = .affine(levels: [UInt8](repeating: 0, count: weights.count), scale: [1], zeroPoint: [0])
        }
        let type: String, attributes: [(String, UnsafeMutablePointer<MILValue>)]
        switch compressed {
        case .affine(let levels, let scale, let zeroPoint):
            type = "constexpr_affine_dequantize"
            attributes = [
                ("quantized_data", spec.milBlobValue(shape: shape, offset: blobs.add(bytes: levels), dataType: MILData.uint8s([]).dataType)),
                ("zero_point", bytesValue(zeroPoint)),
                ("scale", floatsValue(scale, name: name + "_scale")),
                ("axis", spec.milValue(.ints([0]), shape: nil)),
            ]
        case .lookupTable(let packed, let table):
            type = "constexpr_lut_to_dense"
            attributes = [
                ("indices", bytesValue(packed)),
                ("lut", floatsValue(table, name: name + "_lut")),
                ("shape", spec.milValue(.uint32s(shape.map { UInt32($0) }), shape: [shape.count])),
            ]
        }
        append(type, name: name, inputs: [], output: spec.milTensorType(computeType, shape),
               attributes: attributes.map { spec.milEntry($0.0, $0.1) })
        return name
    }

    /// A uint8 vector: a blob of 10 values or more, as coremltools stores it.
    private func bytesValue(_ bytes: [UInt8]) -> UnsafeMutablePointer<MILValue> {
        bytes.count >= Self.blobThreshold ? spec.milBlobValue(shape: [bytes.count], offset: blobs.add(bytes: bytes), dataType: MILData.uint8s([]).dataType)
            : spec.milValue(.uint8s(bytes), shape: [bytes.count])
    }

    /// A float vector in the compute precision: a blob of 10 values or more.
    private func floatsValue(_ values: [Float], name: String) -> UnsafeMutablePointer<MILValue> {
        if float16, compressionFailure == nil, values.contains(where: HalfRounding.overflows) {
            compressionFailure = HalfRounding.overflowError(constant: name).message
        }
        if values.count >= Self.blobThreshold {
            return spec.milBlobValue(shape: [values.count], offset: blobs.add(Weights(values), float16: float16, name: name), float16: float16)
        }
        return spec.milValue(float16 ? .halfs(HalfRounding.bits(values)) : .floats(values), shape: [values.count])
    }
}
