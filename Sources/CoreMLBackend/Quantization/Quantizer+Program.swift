import ModelFormat

/// A constant compressed as an ML Program holds it (coremltools' iOS 16
/// `constexpr_*` operations).
enum CompressedConstant: Equatable {
    /// `constexpr_affine_dequantize`: `value = scale[c] * (level - zeroPoint[c])`,
    /// channel `c` along axis 0, one level a byte.
    case affine(levels: [UInt8], scale: [Float], zeroPoint: [UInt8])
    /// `constexpr_lut_to_dense`: `value = table[level]`, the levels packed
    /// least significant bit first (`BitOrder.leastSignificantFirst`).
    case lookupTable(packed: [UInt8], table: [Float])
}

extension Quantizer {
    /// The bits `constexpr_lut_to_dense` holds (a table of 2, 4, 16, 64 or 256 entries).
    static let lookupTableBits: Set<Int> = [1, 2, 4, 6, 8]

    /// `values` compressed for a program: a lookup table (`linear-lut`,
    /// `kmeans-lut`: the NeuralNetwork's table and levels, `bits` in
    /// `lookupTableBits`) or 8-bit linear levels per channel along axis 0
    /// (`channels` of them). `linear` as coremltools' `linear_quantize_weights`
    /// (mode "linear", uint8): the range widened to hold 0, an integer zero
    /// point; `linear-symmetric` as the NeuralNetwork's: zero point 128,
    /// scale max|value| / 127. `storedScale` rounds a scale as the program
    /// stores it (to float16 in a float16 program; nil: it cannot hold it):
    /// levels are computed with the scale the file holds.
    /// - Throws: `Failure` for NaN or infinite values.
    static func compressForProgram(_ values: UnsafeBufferPointer<Float>, bits: Int, mode: QuantizationMode, channels: Int,
                                   storedScale: (Float) -> Float?) throws(Failure) -> CompressedConstant {
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw Failure(message: "value \(bad + 1) of \(values.count) is \(values[bad]), which no quantization level can hold")
        }
        if mode.usesLookupTable {
            precondition(lookupTableBits.contains(bits), "a program's lookup table of \(bits) bits")
            var levels = [UInt8](repeating: 0, count: values.count)
            let mapping = levels.withUnsafeMutableBufferPointer { mapLevels(values, bits: bits, mode: mode, layout: .whole(values.count), into: $0) }
            guard case .lookupTable(let table) = mapping else { preconditionFailure("a lookup table mode made \(mapping)") }
            var packed = [UInt8](repeating: 0, count: (values.count * bits + 7) / 8)
            levels.withUnsafeBufferPointer { levels in packed.withUnsafeMutableBytes { pack(levels, bits: bits, into: $0, order: .leastSignificantFirst) } }
            return .lookupTable(packed: packed, table: table)
        }
        precondition(bits == 8 && channels > 0 && values.count % channels == 0, "a program's linear levels: \(bits) bits, \(channels) channels")
        let inner = values.count / channels
        var levels = [UInt8](repeating: 0, count: values.count)
        var scales = [Float](repeating: 1, count: channels), zeroPoints = [UInt8](repeating: 0, count: channels)
        for channel in 0..<channels {
            let run = values[channel * inner..<(channel + 1) * inner]
            let (low, high) = run.reduce((Float(0), Float(0))) { (min($0.0, $1), max($0.1, $1)) }
            let symmetric = mode == .linearSymmetric
            // In double: the range of values near float32's largest is no infinity.
            let exact = Float(symmetric ? Double(max(-low, high)) / 127 : (Double(high) - Double(low)) / 255)
            var scale: Float = 1  // a channel of zeros: every level the zero point
            if exact > 0 {
                guard let stored = storedScale(exact), stored > 0, stored.isFinite else {
                    throw Failure(message: "channel \(channel + 1) of \(channels) needs the scale \(exact), which the program cannot hold")
                }
                scale = stored
            }
            let zeroPoint: Float = symmetric ? 128 : min(max((-low / scale).rounded(.toNearestOrEven), 0), 255)
            var reach: Float = 0
            for index in run.indices {
                let level = min(max((values[index] / scale).rounded(.toNearestOrEven) + zeroPoint, 0), 255)
                levels[index] = UInt8(level)
                reach = max(reach, abs(level - zeroPoint))
            }
            // The largest value read back must be one the program holds too (a float16 scale rounded up times 255 can pass 65504).
            guard storedScale(scale * reach) != nil else {
                throw Failure(message: "channel \(channel + 1) of \(channels) reads back \(scale * reach), which the program cannot hold")
            }
            (scales[channel], zeroPoints[channel]) = (scale, UInt8(zeroPoint))
        }
        return .affine(levels: levels, scale: scales, zeroPoint: zeroPoints)
    }
}
