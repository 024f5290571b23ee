/// Constant tensors stored other than as float32, read as float32: FLOAT16
/// weights (a model converted with `supported_types = [tf.float16]`, each
/// read through a DEQUANTIZE the walk folds), and quantized INT8, UINT8 and
/// INT32 ones (`value = scale * (q - zero_point)`, one scale for all or one
/// per slice along `quantized_dimension`).
enum TFLiteConstants {
    /// The values of `tensor` (`count` of them in `data`), nil for a
    /// float32 tensor, which is read in place.
    /// - Throws: `TFLiteOpError` for a type not read or data of the wrong size.
    static func widened(_ tensor: TFLiteModel.Tensor, _ data: UnsafeRawBufferPointer, count: Int) throws -> [Float]? {
        let what = "'\(tensor.name)' (\(TFLiteModel.typeName(tensor.type)))"
        if tensor.type == 0 && !tensor.isQuantized { return nil }
        if tensor.type == 1 && !tensor.isQuantized {
            guard data.count == 2 * count else { throw TFLiteOpError("\(what) has \(data.count) bytes for \(count) values") }
            return (0..<count).map { Float(Float16(bitPattern: UInt16(littleEndian: data.loadUnaligned(fromByteOffset: 2 * $0, as: UInt16.self)))) }
        }
        let size: Int
        switch tensor.type {
        case 9, 3: size = 1  // INT8, UINT8
        case 2: size = 4  // INT32 (a quantized bias)
        default: throw TFLiteOpError("\(what) is a constant of a type that is not read")
        }
        guard !tensor.scales.isEmpty else { throw TFLiteOpError("\(what) has no quantization scales: it is not a float's quantized form") }
        guard data.count == size * count else { throw TFLiteOpError("\(what) has \(data.count) bytes for \(count) values") }
        let shape = tensor.shape.map(Int.init)
        let axis = tensor.quantizedDimension
        let channels = tensor.scales.count
        guard channels == 1 || (shape.indices.contains(axis) && shape[axis] == channels) else {
            throw TFLiteOpError("\(what) has \(channels) scales for its shape \(shape) along dimension \(axis)")
        }
        guard tensor.zeroPoints.isEmpty || tensor.zeroPoints.count == channels else {
            throw TFLiteOpError("\(what) has \(tensor.zeroPoints.count) zero points for \(channels) scales")
        }
        let levels: ClosedRange<Int64> = switch tensor.type {
        case 9: -128...127
        case 3: 0...255
        default: Int64(Int32.min)...Int64(Int32.max)
        }
        if let zero = tensor.zeroPoints.first(where: { !levels.contains($0) }) {
            throw TFLiteOpError("\(what) has the zero point \(zero), outside its levels \(levels.lowerBound)...\(levels.upperBound)")
        }
        if let scale = tensor.scales.first(where: { !$0.isFinite }) { throw TFLiteOpError("\(what) has the scale \(scale)") }
        guard count > 0 else { return [] }
        // Each size is at most 2^30 and their product `count` too, so a product of some of them (none 0) fits.
        let stride = channels == 1 ? 1 : shape[(axis + 1)...].reduce(1, *)
        return (0..<count).map { index in
            let channel = channels == 1 ? 0 : (index / stride) % channels
            let q: Int64 = switch tensor.type {
            case 9: Int64(Int8(bitPattern: data[index]))
            case 3: Int64(data[index])
            default: Int64(Int32(littleEndian: data.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self)))
            }
            let zero = tensor.zeroPoints.isEmpty ? 0 : tensor.zeroPoints[channel]
            return tensor.scales[channel] * Float(q - zero)
        }
    }

    /// Whether Core ML's 8-bit linear-symmetric weights (per output
    /// channel: `scale = max |w| / 127`, levels `w / scale + 128`) hold the
    /// INT8 weights of `tensor` with the same scales and levels: symmetric
    /// (zero points 0), one scale per output channel (`axis`), and each
    /// channel reaching +-127 (TFLite's symmetric range, -128 unused).
    static func fitsLinearSymmetric(_ tensor: TFLiteModel.Tensor, _ data: UnsafeRawBufferPointer, outputAxis axis: Int) -> Bool {
        let shape = tensor.shape.map(Int.init)
        let count = shape.reduce(Optional(1)) { product, size in
            product.flatMap { size >= 0 ? $0.multipliedReportingOverflow(by: size) : nil }.flatMap { $0.overflow ? nil : $0.partialValue }
        }
        guard tensor.type == 9, shape.indices.contains(axis), tensor.quantizedDimension == axis, tensor.scales.count == shape[axis],
              tensor.zeroPoints.allSatisfy({ $0 == 0 }), let count, count > 0, data.count == count else { return false }
        let channels = shape[axis], stride = shape[(axis + 1)...].reduce(1, *)
        var largest = [Int](repeating: 0, count: channels)
        for index in 0..<data.count {
            let q = Int(Int8(bitPattern: data[index]))
            guard q != -128 else { return false }
            let channel = (index / stride) % channels
            largest[channel] = max(largest[channel], abs(q))
        }
        return largest.allSatisfy { $0 == 127 }
    }
}
