import ModelFormat

/// A constant compressed as an ML Program holds it (coremltools' iOS 16
/// `constexpr_*` operations).
enum CompressedConstant: Equatable {
    /// `constexpr_affine_dequantize`: `value = scale[c] * (level - zeroPoint[c])`,
    /// channel `c` along axis 0, one level a byte.
    case affine(levels: [UInt8], scale: [Float], zeroPoint: [UInt8])
    /// `constexpr_lut_to_dense`: `value = table[level]`, the levels packed
    /// least significant bit first (`packLeastSignificantFirst`).
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
    /// stores it (to float16 in a float16 program): levels are computed with
    /// the scale the file holds.
    /// - Throws: `Failure` for NaN or infinite values.
    static func compressForProgram(_ values: UnsafeBufferPointer<Float>, bits: Int, mode: QuantizationMode, channels: Int,
                                   storedScale: (Float) -> Float) throws(Failure) -> CompressedConstant {
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw Failure(message: "value \(bad + 1) of \(values.count) is \(values[bad]), which no quantization level can hold")
        }
        if mode.usesLookupTable {
            precondition(lookupTableBits.contains(bits), "a program's lookup table of \(bits) bits")
            var levels = [UInt8](repeating: 0, count: values.count)
            let mapping = levels.withUnsafeMutableBufferPointer { mapLevels(values, bits: bits, mode: mode, layout: .whole(values.count), into: $0) }
            guard case .lookupTable(let table) = mapping else { preconditionFailure("a lookup table mode made \(mapping)") }
            return .lookupTable(packed: packLeastSignificantFirst(levels, bits: bits), table: table)
        }
        precondition(bits == 8 && channels > 0 && values.count % channels == 0, "a program's linear levels: \(bits) bits, \(channels) channels")
        let inner = values.count / channels
        var levels = [UInt8](repeating: 0, count: values.count)
        var scales = [Float](repeating: 1, count: channels), zeroPoints = [UInt8](repeating: 0, count: channels)
        for channel in 0..<channels {
            let run = values[channel * inner..<(channel + 1) * inner]
            let (low, high) = run.reduce((Float(0), Float(0))) { (min($0.0, $1), max($0.1, $1)) }
            let symmetric = mode == .linearSymmetric
            var scale = storedScale(symmetric ? max(-low, high) / 127 : (high - low) / 255)
            if !(scale > 0) || !scale.isFinite { scale = 1 }
            let zeroPoint: Float = symmetric ? 128 : min(max((-low / scale).rounded(.toNearestOrEven), 0), 255)
            for index in run.indices {
                levels[index] = UInt8(min(max((values[index] / scale).rounded(.toNearestOrEven) + zeroPoint, 0), 255))
            }
            (scales[channel], zeroPoints[channel]) = (scale, UInt8(zeroPoint))
        }
        return .affine(levels: levels, scale: scales, zeroPoint: zeroPoints)
    }

    /// `levels` at `bits` each, packed as `constexpr_lut_to_dense` reads
    /// them: one byte at a time from its least significant bit up, a level
    /// split across two bytes its low bits first; the last byte padded with
    /// zero bits.
    static func packLeastSignificantFirst(_ levels: [UInt8], bits: Int) -> [UInt8] {
        var packed = [UInt8](repeating: 0, count: (levels.count * bits + 7) / 8)
        var bit = 0
        for level in levels {
            for position in 0..<bits {
                if level >> position & 1 == 1 { packed[bit >> 3] |= 1 << (bit & 7) }
                bit += 1
            }
        }
        return packed
    }

    /// Level `index` of `packed` (`packLeastSignificantFirst`).
    @inline(__always)
    static func levelLeastSignificantFirst(_ packed: UnsafeRawBufferPointer, bits: Int, at index: Int) -> Int {
        if bits == 8 { return Int(packed[index]) }
        var level = 0, bit = index * bits
        for position in 0..<bits {
            level |= Int(packed[bit >> 3] >> (bit & 7) & 1) << position
            bit += 1
        }
        return level
    }
}
