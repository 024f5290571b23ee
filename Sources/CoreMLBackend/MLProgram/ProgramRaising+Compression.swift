import ModelFormat
import CoreMLSchema
import Protobuf

/// Compressed constants back as float weights computed when first needed,
/// in the forms coremltools writes (`ProgramBuilder+Compression` writes
/// the same):
/// - iOS 16, parameters as the operation's attributes:
///   `constexpr_affine_dequantize` as `scale * (quantized_data - zero_point)`
///   along `axis` (uint8 or int8 levels; a uint8, int8 or float32 zero
///   point); `constexpr_lut_to_dense` as `lut[index]`, the indices packed
///   in a byte vector least significant bit first.
/// - iOS 18, parameters bound as inputs: `constexpr_blockwise_shift_scale`
///   as `scale * (data - offset)`, scale and offset of data's rank, each of
///   their entries a block of data (int4, uint4, int8 or uint8 levels; an
///   offset of their type or float); `constexpr_lut_to_dense` as
///   `lut[block..., index, 0]`, the indices of the output's shape (uint1 to
///   uint8), a table per block of the leading axes. Vector tables
///   (`VECTOR_SIZE` above 1) are refused by name.
/// A float16 output is each float32 result rounded to float16, as
/// coremltools' `decompress` casts it.
extension ProgramRaising {
    func decompressed(_ operation: UnsafeMutablePointer<MILOperation>, type: String, name: String, shape: [Int]) throws -> ProgramConstant {
        guard let count = shape.checkedProduct, count <= TensorShape.maximumCount else { throw fail("\(type) '\(name)' of \(shape) values", operation) }
        let dataType = Self.dataType(of: operation.pointee.outputs[0]?.pointee.type)
        guard dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16 || dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT32 else {
            throw fail("\(type) '\(name)' does not make float16 or float32 values", operation)
        }
        let float16 = dataType == CORE_ML__SPECIFICATION__MILSPEC__DATA_TYPE__FLOAT16
        let inputForm = operation.pointee.n_inputs > 0  // iOS 18's
        /// A parameter: an input bound to a value (iOS 18), or an attribute (iOS 16).
        func parameter(_ key: String, optional: Bool = false) throws -> ProgramConstant? {
            var value: ProgramConstant?
            if inputForm {
                value = try constant(operation, key)
            } else if let entry = CArrays.buffer(operation.pointee.attributes, operation.pointee.n_attributes)
                .first(where: { CArrays.string($0?.pointee.key) == key }) ?? nil {
                value = try constant(entry.pointee.value)
            }
            guard value != nil || optional else { throw fail("\(type) '\(name)' has no \(key)", operation) }
            return value
        }
        let values: Decompression
        switch (type, inputForm) {
        case ("constexpr_affine_dequantize", false):
            values = try affine(data: parameter("quantized_data")!, zeroPoint: parameter("zero_point")!, scale: parameter("scale")!,
                                axis: parameter("axis")!, shape: shape, what: "\(type) '\(name)'", operation)
        case ("constexpr_blockwise_shift_scale", true):
            values = try blockwise(data: parameter("data")!, scale: parameter("scale")!, offset: parameter("offset", optional: true),
                                   shape: shape, what: "\(type) '\(name)'", operation)
        case ("constexpr_lut_to_dense", false):
            values = try lookup(indices: parameter("indices")!, table: parameter("lut")!, declared: parameter("shape")!.ints, shape: shape,
                                what: "\(type) '\(name)'", operation)
        case ("constexpr_lut_to_dense", true):
            if try parameter("vector_axis", optional: true) != nil, try parameter("lut")!.shape.last != 1 {
                throw fail("\(type) '\(name)' holds vectors (VECTOR_SIZE above 1), which are not read yet", operation)
            }
            values = try blockLookup(indices: parameter("indices")!, table: parameter("lut")!, shape: shape, what: "\(type) '\(name)'", operation)
        default:
            throw fail("\(type) '\(name)' in \(inputForm ? "iOS 18's form (its parameters inputs)" : "iOS 16's form (its parameters attributes)"), "
                       + "which is not that operation's", operation)
        }
        var weights = Weights(producer: WeightProducer(count: count, rowLength: 1) { start, target in
            for offset in target.indices {
                let value = values.value(start + offset)
                target[offset] = float16 ? HalfRounding.value(value.halfBits) : value
            }
        })
        weights.storedPrecision = values.precision
        return ProgramConstant(shape: shape, floats: weights)
    }

    /// A compressed constant's value at each index, and how it is stored.
    struct Decompression: Sendable {
        let value: @Sendable (Int) -> Float
        let precision: Precision
    }

    /// iOS 16's affine form: one scale and zero point per slice of `axis`, or one for all.
    private func affine(data: ProgramConstant, zeroPoint zero: ProgramConstant, scale: ProgramConstant, axis given: ProgramConstant,
                        shape: [Int], what: String, _ operation: UnsafeMutablePointer<MILOperation>) throws -> Decompression {
        guard data.shape == shape, let levels = data.bytes, levels.type.bits == 8 else {
            throw fail("\(what): quantized_data is not its \(shape) levels of 8 bits", operation)
        }
        guard let axisValue = given.ints.first, (-shape.count..<shape.count).contains(axisValue) else {
            throw fail("\(what): axis is not an axis of \(shape)", operation)
        }
        let axis = axisValue < 0 ? axisValue + shape.count : axisValue
        guard let scales = scale.floats?.values, scale.shape.count <= 1, [1, shape[axis]].contains(scales.count) else {
            throw fail("\(what): scale is not a float scalar or a vector of \(shape[axis])", operation)
        }
        let zeroPoints = zero.floats?.values ?? zero.bytes.map { bytes in (0..<bytes.count).map(bytes.value) } ?? []
        guard zero.shape.count <= 1, [1, shape[axis]].contains(zeroPoints.count) else {
            throw fail("\(what): zero_point is not a scalar or a vector of \(shape[axis])", operation)
        }
        let inner = shape[(axis + 1)...].reduce(1, *), channels = shape[axis]
        return Decompression(value: { index in
            let channel = index / inner % channels
            return (levels.value(index) - zeroPoints[zeroPoints.count == 1 ? 0 : channel]) * scales[scales.count == 1 ? 0 : channel]
        }, precision: .quantized(bits: 8, .linear))
    }

    /// iOS 18's blockwise form: a scale (and offset) per block, the blocks' sizes data's shape over scale's.
    private func blockwise(data: ProgramConstant, scale: ProgramConstant, offset: ProgramConstant?, shape: [Int], what: String,
                           _ operation: UnsafeMutablePointer<MILOperation>) throws -> Decompression {
        guard data.shape == shape, let levels = data.bytes, [PackedInteger.int4, .unsigned(4), .int8, .uint8].contains(levels.type) else {
            throw fail("\(what): data is not its \(shape) levels of int4, uint4, int8 or uint8", operation)
        }
        guard let scales = scale.floats?.values, let blocks = Self.blocks(of: shape, by: scale.shape) else {
            throw fail("\(what): scale is not a float tensor of the data's rank whose sizes divide \(shape)", operation)
        }
        var given: [Float]?
        if let offset {
            guard offset.shape == scale.shape else { throw fail("\(what): offset's shape \(offset.shape) is not scale's \(scale.shape)", operation) }
            if let bytes = offset.bytes {
                guard bytes.type == levels.type else { throw fail("\(what): offset is \(bytes.type.name) and data \(levels.type.name)", operation) }
                given = (0..<bytes.count).map(bytes.value)
            } else {
                guard let floats = offset.floats?.values else { throw fail("\(what): offset is neither data's type nor float", operation) }
                given = floats
            }
        }
        let offsets = given
        return Decompression(value: { index in
            let block = blocks(index)
            return (levels.value(index) - (offsets?[block] ?? 0)) * scales[block]
        }, precision: .quantized(bits: levels.type.bits, .linear))
    }

    /// iOS 16's table: one of 2^bits floats, the indices packed in a byte vector.
    private func lookup(indices: ProgramConstant, table lut: ProgramConstant, declared: [Int], shape: [Int], what: String,
                        _ operation: UnsafeMutablePointer<MILOperation>) throws -> Decompression {
        let count = shape.reduce(1, *)
        guard let table = lut.floats?.values, lut.shape.count == 1, let bits = [2: 1, 4: 2, 16: 4, 64: 6, 256: 8][table.count] else {
            throw fail("\(what): lut is not a float vector of 2, 4, 16, 64 or 256 entries", operation)
        }
        guard declared == shape else { throw fail("\(what): shape \(declared) is not its declared output \(shape)", operation) }
        guard indices.shape.count == 1, let packed = indices.bytes, packed.type == .uint8, packed.count == (count * bits + 7) / 8 else {
            throw fail("\(what): indices are not \((count * bits + 7) / 8) bytes of \(bits)-bit levels", operation)
        }
        let index = PackedInteger.unsigned(bits)
        return Decompression(value: { table[index.value(packed.buffer, at: $0)] }, precision: .quantized(bits: bits, .kmeansLookupTable))
    }

    /// iOS 18's tables: `lut` [blocks..., 2^bits, 1], a table per block of the output's leading axes.
    private func blockLookup(indices: ProgramConstant, table lut: ProgramConstant, shape: [Int], what: String,
                             _ operation: UnsafeMutablePointer<MILOperation>) throws -> Decompression {
        guard indices.shape == shape, let packed = indices.bytes, !packed.type.signed else {
            throw fail("\(what): indices are not \(shape) unsigned levels", operation)
        }
        let entries = 1 << packed.type.bits
        guard let table = lut.floats?.values, lut.shape.count == shape.count + 2, lut.shape.suffix(2) == [entries, 1],
              let blocks = Self.blocks(of: shape, by: Array(lut.shape.prefix(shape.count))) else {
            throw fail("\(what): lut \(lut.shape) is not float tables [blocks..., \(entries), 1] whose blocks divide \(shape)", operation)
        }
        return Decompression(value: { index in table[blocks(index) * entries + packed.type.value(packed.buffer, at: index)] },
                             precision: .quantized(bits: packed.type.bits, .kmeansLookupTable))
    }

    /// The block of each index of a tensor of `shape` cut into `counts` blocks along each axis (nil: a rank or a size
    /// that does not divide), blocks numbered row-major.
    static func blocks(of shape: [Int], by counts: [Int]) -> (@Sendable (Int) -> Int)? {
        guard counts.count == shape.count, zip(shape, counts).allSatisfy({ $1 > 0 && $0 % $1 == 0 }) else { return nil }
        let sizes = zip(shape, counts).map { $0 / $1 }
        return { index in
            var rest = index, block = 0, stride = 1
            for axis in shape.indices.reversed() {
                let position = rest % shape[axis]
                rest /= shape[axis]
                block += position / sizes[axis] * stride
                stride *= counts[axis]
            }
            return block
        }
    }
}
