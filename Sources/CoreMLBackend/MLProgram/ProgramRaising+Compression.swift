import ModelFormat
import CoreMLSchema
import Protobuf

/// Compressed constants (`ProgramBuilder+Compression`, and coremltools'
/// iOS 16 forms) back as float weights, computed when first needed:
/// `constexpr_affine_dequantize` as `scale * (quantized_data - zero_point)`
/// along `axis` (uint8 or int8 levels; a uint8, int8 or float32 zero point),
/// `constexpr_lut_to_dense` as `lut[index]` (indices packed least
/// significant bit first). A float16 output is each float32 result rounded
/// to float16, as coremltools' `decompress` casts it. The parameters are
/// the operation's attributes (iOS 16, 17) or its inputs (iOS 18).
extension ProgramRaising {
    func decompressed(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String, shape: [Int]) throws -> ProgramConstant {
        func parameter(_ key: String) throws -> ProgramConstant {
            let entry = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes)
                .first(where: { CArrays.string($0?.pointee.key) == key }) ?? nil
            if let entry { return try constant(entry.pointee.value) }
            guard let bound = try constant(operation, key) else { throw fail("\(type) '\(name)' has no \(key)", operation) }
            return bound
        }
        let count = shape.checkedProduct ?? .max
        let float16 = try outputIsFloat16(operation, type: type, name: name)
        var weights: Weights
        if type == "constexpr_affine_dequantize" {
            let data = try parameter("quantized_data"), zero = try parameter("zero_point"), scale = try parameter("scale")
            guard data.shape == shape, data.bytes.count == count else { throw fail("\(type) '\(name)': quantized_data is not its \(shape) levels", operation) }
            guard let axisValue = try parameter("axis").ints.first, (-shape.count..<shape.count).contains(axisValue) else {
                throw fail("\(type) '\(name)': axis is not an axis of \(shape)", operation)
            }
            let axis = axisValue < 0 ? axisValue + shape.count : axisValue
            guard let scales = scale.floats?.values, scale.shape.count <= 1, [1, shape[axis]].contains(scales.count) else {
                throw fail("\(type) '\(name)': scale is not a float scalar or a vector of \(shape[axis])", operation)
            }
            let zeroPoints = zero.floats?.values ?? zero.bytes.map { zero.signed ? Float(Int8(bitPattern: $0)) : Float($0) }
            guard zero.shape.count <= 1, [1, shape[axis]].contains(zeroPoints.count) else {
                throw fail("\(type) '\(name)': zero_point is not a scalar or a vector of \(shape[axis])", operation)
            }
            let levels = data.bytes, signed = data.signed
            let inner = shape[(axis + 1)...].reduce(1, *), channels = shape[axis]
            weights = Weights(producer: WeightProducer(count: count, rowLength: 1) { start, target in
                for offset in target.indices {
                    let index = start + offset, channel = index / inner % channels
                    let level = signed ? Float(Int8(bitPattern: levels[index])) : Float(levels[index])
                    let value = (level - zeroPoints[zeroPoints.count == 1 ? 0 : channel]) * scales[scales.count == 1 ? 0 : channel]
                    target[offset] = float16 ? HalfRounding.value(value.halfBits) : value
                }
            })
            weights.storedPrecision = .quantized(bits: 8, .linear)
        } else {
            let indices = try parameter("indices"), lut = try parameter("lut"), declared = try parameter("shape").ints
            guard let table = lut.floats?.values, lut.shape.count == 1, let bits = [2: 1, 4: 2, 16: 4, 64: 6, 256: 8][table.count] else {
                throw fail("\(type) '\(name)': lut is not a float vector of 2, 4, 16, 64 or 256 entries", operation)
            }
            guard declared == shape else { throw fail("\(type) '\(name)': shape \(declared) is not its declared output \(shape)", operation) }
            guard indices.shape.count == 1, !indices.signed, indices.bytes.count == (count * bits + 7) / 8 else {
                throw fail("\(type) '\(name)': indices are not \((count * bits + 7) / 8) bytes of \(bits)-bit levels", operation)
            }
            let packed = indices.bytes
            weights = Weights(producer: WeightProducer(count: count, rowLength: 1) { start, target in
                packed.withUnsafeBytes { raw in
                    for offset in target.indices { target[offset] = table[Quantizer.levelLeastSignificantFirst(raw, bits: bits, at: start + offset)] }
                }
            })
            weights.storedPrecision = .quantized(bits: bits, .kmeansLookupTable)
        }
        return ProgramConstant(shape: shape, floats: weights)
    }

    /// Whether the operation's output is float16 (else float32; nothing else decompresses to weights).
    private func outputIsFloat16(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String) throws -> Bool {
        let dataType = operation.pointee.outputs[0]?.pointee.type?.pointee.tensortype?.pointee.datatype
        guard dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 || dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32 else {
            throw fail("\(type) '\(name)' does not make float16 or float32 values", operation)
        }
        return dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16
    }
}
