import ModelFormat
import CoreMLSchema
import Protobuf

/// Compressed constants in iOS 16's form (`ProgramBuilder+Compression`, and
/// coremltools'), their parameters the operation's attributes, back as
/// float weights computed when first needed: `constexpr_affine_dequantize`
/// as `scale * (quantized_data - zero_point)` along `axis` (uint8 or int8
/// levels; a uint8, int8 or float32 zero point), `constexpr_lut_to_dense` as
/// `lut[index]` (indices packed least significant bit first). A float16
/// output is each float32 result rounded to float16, as coremltools'
/// `decompress` casts it. iOS 18 redefined both operations (bound as inputs,
/// sub-byte types, grouped tables): that form is refused by name.
extension ProgramRaising {
    func decompressed(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String, shape: [Int]) throws -> ProgramConstant {
        guard operation.pointee.n_inputs == 0 else { throw fail("\(type) '\(name)' in iOS 18's form (its parameters inputs) is not read yet", operation) }
        func parameter(_ key: String) throws -> ProgramConstant {
            guard let entry = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes)
                .first(where: { CArrays.string($0?.pointee.key) == key }) ?? nil else { throw fail("\(type) '\(name)' has no \(key)", operation) }
            return try constant(entry.pointee.value)
        }
        guard let count = shape.checkedProduct, count <= TensorShape.maximumCount else { throw fail("\(type) '\(name)' of \(shape) values", operation) }
        let dataType = Self.dataType(of: operation.pointee.outputs[0]?.pointee.type)
        guard dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 || dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32 else {
            throw fail("\(type) '\(name)' does not make float16 or float32 values", operation)
        }
        let float16 = dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16
        var weights: Weights
        if type == "constexpr_affine_dequantize" {
            let data = try parameter("quantized_data"), zero = try parameter("zero_point"), scale = try parameter("scale")
            guard data.shape == shape, let levels = data.bytes else { throw fail("\(type) '\(name)': quantized_data is not its \(shape) levels", operation) }
            guard let axisValue = try parameter("axis").ints.first, (-shape.count..<shape.count).contains(axisValue) else {
                throw fail("\(type) '\(name)': axis is not an axis of \(shape)", operation)
            }
            let axis = axisValue < 0 ? axisValue + shape.count : axisValue
            guard let scales = scale.floats?.values, scale.shape.count <= 1, [1, shape[axis]].contains(scales.count) else {
                throw fail("\(type) '\(name)': scale is not a float scalar or a vector of \(shape[axis])", operation)
            }
            let zeroPoints = zero.floats?.values ?? zero.bytes.map { bytes in (0..<bytes.buffer.count).map(bytes.value) } ?? []
            guard zero.shape.count <= 1, [1, shape[axis]].contains(zeroPoints.count) else {
                throw fail("\(type) '\(name)': zero_point is not a scalar or a vector of \(shape[axis])", operation)
            }
            let inner = shape[(axis + 1)...].reduce(1, *), channels = shape[axis]
            weights = Weights(producer: WeightProducer(count: count, rowLength: 1) { start, target in
                for offset in target.indices {
                    let index = start + offset, channel = index / inner % channels
                    let value = (levels.value(index) - zeroPoints[zeroPoints.count == 1 ? 0 : channel]) * scales[scales.count == 1 ? 0 : channel]
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
            guard indices.shape.count == 1, let packed = indices.bytes, !packed.signed, packed.buffer.count == (count * bits + 7) / 8 else {
                throw fail("\(type) '\(name)': indices are not \((count * bits + 7) / 8) bytes of \(bits)-bit levels", operation)
            }
            weights = Weights(producer: WeightProducer(count: count, rowLength: 1) { start, target in
                for offset in target.indices {
                    target[offset] = table[Quantizer.level(packed.buffer, bits: bits, at: start + offset, order: .leastSignificantFirst)]
                }
            })
            weights.storedPrecision = .quantized(bits: bits, .kmeansLookupTable)
        }
        return ProgramConstant(shape: shape, floats: weights)
    }
}
