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
    /// by `mode` (which `ProgramOptions.refusal` accepted); linear levels per
    /// slice of the first axis (a convolution's or linear's output channels),
    /// one scale for a vector. Values that cannot be quantized (NaN,
    /// infinite, a scale the compute precision cannot hold) leave
    /// `compressionFailure` set and write nothing.
    /// - Returns: the operation's output name.
    func compressedConstant(_ base: String, _ weights: Weights, shape: [Int], bits: Int, mode: QuantizationMode) -> String {
        let name = freshName(base)
        let float16 = self.float16, channels = shape.count >= 2 ? shape[0] : 1
        let compressed: CompressedConstant
        do {
            compressed = try weights.withValuesOnce { values throws(Quantizer.Failure) in
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
        } catch {
            if compressionFailure == nil { compressionFailure = "constant '\(name)': cannot be quantized: \(error.message)" }
            return name
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

    /// A uint8 scalar (one value), or vector: a blob of 10 values or more, as coremltools stores it.
    private func bytesValue(_ bytes: [UInt8]) -> UnsafeMutablePointer<MILValue> {
        if bytes.count >= Self.blobThreshold {
            return spec.milBlobValue(shape: [bytes.count], offset: blobs.add(bytes: bytes), dataType: MILData.uint8s([]).dataType)
        }
        return spec.milValue(.uint8s(bytes), shape: bytes.count == 1 ? nil : [bytes.count])
    }

    /// A float scalar (one value), or vector in the compute precision: a blob of 10 values or more.
    private func floatsValue(_ values: [Float], name: String) -> UnsafeMutablePointer<MILValue> {
        if float16, compressionFailure == nil, values.contains(where: HalfRounding.overflows) {
            compressionFailure = HalfRounding.overflowError(constant: name).message
        }
        if values.count >= Self.blobThreshold {
            return spec.milBlobValue(shape: [values.count], offset: blobs.add(Weights(values), float16: float16, name: name), float16: float16)
        }
        return spec.milValue(float16 ? .halfs(HalfRounding.bits(values)) : .floats(values), shape: values.count == 1 ? nil : [values.count])
    }
}
