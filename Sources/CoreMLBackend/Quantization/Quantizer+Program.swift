import ModelFormat

/// A constant compressed as an ML Program holds it: its values in runs of
/// equal length, contiguous and row-major (an output channel's, a block's of
/// one, a group's of channels), each run with its own parameters.
enum CompressedConstant: Equatable {
    /// `value = scale[run] * (level - zeroPoint[run])`, levels 0 ..< 2^bits
    /// (a symmetric mode's zero point is 2^(bits-1)), one a byte.
    case affine(levels: [UInt8], scale: [Float], zeroPoint: [UInt8])
    /// `value = tables[run][level]`, each table 2^bits entries, the levels
    /// packed least significant bit first (`BitOrder.leastSignificantFirst`).
    case lookupTable(packed: [UInt8], tables: [Float])
}

extension Quantizer {
    /// The bits `constexpr_lut_to_dense` holds (a table of 2, 4, 8, 16, 64 or 256 entries; 3 from iOS 18).
    static let lookupTableBits: Set<Int> = [1, 2, 3, 4, 6, 8]
    /// The bits of a program's linear levels: 8 (iOS 16's uint8), 4 (iOS 18's int4, uint4).
    static let programLinearBits: Set<Int> = [4, 8]

    /// `values` compressed for a program, in `runs` runs: a lookup table per
    /// run (`linear-lut`, `kmeans-lut`: the NeuralNetwork's table and levels,
    /// `bits` in `lookupTableBits`) or linear levels of `bits` (in
    /// `programLinearBits`) with a scale per run. `linear` as coremltools'
    /// `linear_quantize_weights` (mode "linear", unsigned): the range
    /// widened to hold 0, an integer zero point; `linear-symmetric` as the
    /// NeuralNetwork's: zero point 2^(bits-1), scale max|value| / (2^(bits-1) - 1).
    /// `storedScale` rounds a scale as the program stores it (to float16 in a
    /// float16 program; nil: it cannot hold it): levels are computed with the
    /// scale the file holds.
    /// - Throws: `Failure` for NaN or infinite values.
    static func compressForProgram(_ values: UnsafeBufferPointer<Float>, bits: Int, mode: QuantizationMode, runs: Int,
                                   storedScale: (Float) -> Float?) throws(Failure) -> CompressedConstant {
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw Failure(message: "value \(bad + 1) of \(values.count) is \(values[bad]), which no quantization level can hold")
        }
        precondition(runs > 0 && values.count % runs == 0, "\(values.count) values in \(runs) runs")
        let length = values.count / runs
        if mode.usesLookupTable {
            precondition(lookupTableBits.contains(bits), "a program's lookup table of \(bits) bits")
            var levels = [UInt8](repeating: 0, count: values.count), tables: [Float] = []
            levels.withUnsafeMutableBufferPointer { levels in
                for run in 0..<runs {
                    let part = UnsafeBufferPointer(rebasing: values[run * length..<(run + 1) * length])
                    let target = UnsafeMutableBufferPointer(rebasing: levels[run * length..<(run + 1) * length])
                    guard case .lookupTable(let table) = mapLevels(part, bits: bits, mode: mode, layout: .whole(length), into: target) else {
                        preconditionFailure("a lookup table mode made no table")
                    }
                    tables += table
                }
            }
            var packed = [UInt8](repeating: 0, count: (values.count * bits + 7) / 8)
            levels.withUnsafeBufferPointer { levels in packed.withUnsafeMutableBytes { pack(levels, bits: bits, into: $0, order: .leastSignificantFirst) } }
            return .lookupTable(packed: packed, tables: tables)
        }
        precondition(programLinearBits.contains(bits), "a program's linear levels of \(bits) bits")
        let top = Float((1 << bits) - 1), half = Float(1 << (bits - 1))
        var levels = [UInt8](repeating: 0, count: values.count)
        var scales = [Float](repeating: 1, count: runs), zeroPoints = [UInt8](repeating: 0, count: runs)
        for run in 0..<runs {
            let part = values[run * length..<(run + 1) * length]
            let (low, high) = part.reduce((Float(0), Float(0))) { (min($0.0, $1), max($0.1, $1)) }
            let symmetric = mode == .linearSymmetric
            // In double: the range of values near float32's largest is no infinity.
            let exact = Float(symmetric ? Double(max(-low, high)) / Double(half - 1) : (Double(high) - Double(low)) / Double(top))
            var scale: Float = 1  // a run of zeros: every level the zero point
            if exact > 0 {
                guard let stored = storedScale(exact), stored > 0, stored.isFinite else {
                    throw Failure(message: "values \(run * length + 1) to \((run + 1) * length) need the scale \(exact), which the program cannot hold")
                }
                scale = stored
            }
            let zeroPoint: Float = symmetric ? half : min(max((-low / scale).rounded(.toNearestOrEven), 0), top)
            var reach: Float = 0
            for index in part.indices {
                let level = min(max((values[index] / scale).rounded(.toNearestOrEven) + zeroPoint, 0), top)
                levels[index] = UInt8(level)
                reach = max(reach, abs(level - zeroPoint))
            }
            // The largest value read back must be one the program holds too (a float16 scale rounded up times 255 can pass 65504).
            guard storedScale(scale * reach) != nil else {
                throw Failure(message: "values \(run * length + 1) to \((run + 1) * length) read back \(scale * reach), which the program cannot hold")
            }
            (scales[run], zeroPoints[run]) = (scale, UInt8(zeroPoint))
        }
        return .affine(levels: levels, scale: scales, zeroPoint: zeroPoints)
    }
}
