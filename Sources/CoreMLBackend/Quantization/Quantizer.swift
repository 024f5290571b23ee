import ModelFormat

/// How a weight tensor splits into the channels that per-channel linear
/// quantization gives a scale and bias each: value `i` belongs to channel
/// `(i / inner) % channels`. Convolution and inner-product weights split
/// along their first axis (output channels); deconvolution weights,
/// [input channels, output channels, kh, kw], along the second.
struct ChannelLayout: Equatable, Sendable {
    var channels: Int
    var inner: Int

    /// One channel: a bias, a batch norm's vectors, a constant.
    static func whole(_ count: Int) -> ChannelLayout { ChannelLayout(channels: 1, inner: max(count, 1)) }

    /// `channels` runs of values along the first axis.
    static func leading(_ channels: Int, count: Int) -> ChannelLayout {
        channels > 0 && count % channels == 0 ? ChannelLayout(channels: channels, inner: max(count / channels, 1)) : .whole(count)
    }
}

/// How quantized weights' levels map back to floats (`QuantizationParams`).
enum QuantizationMapping: Equatable {
    /// `value = scale[c] * level + bias[c]`, one entry or one per channel.
    case linear(scale: [Float], bias: [Float])
    /// `value = table[level]`, 2^bits entries.
    case lookupTable([Float])
}

/// Quantizes weights the way coremltools' `quantize_weights` does, to the
/// bit (`linearLevels` says which arithmetic that is), with a scale of at
/// most 1e-6 treated as zero.
enum Quantizer {
    /// Why weights cannot be quantized.
    struct Failure: Error, Equatable {
        var message: String
    }

    /// Writes the levels of `values` at `bits` (1 to 8) into `packed` as
    /// Core ML stores them (`WeightParams.rawValue`: most significant bit
    /// first, (count * bits + 7) / 8 bytes, zeroed before) and returns how
    /// they map back. At 8 bits the levels are written there directly.
    /// - Throws: `Failure` for NaN or infinite values (no level holds them).
    static func quantize(_ values: UnsafeBufferPointer<Float>, bits: Int, mode: QuantizationMode, layout: ChannelLayout,
                         into packed: UnsafeMutableRawBufferPointer) throws(Failure) -> QuantizationMapping {
        precondition((1...8).contains(bits) && packed.count == (values.count * bits + 7) / 8, "quantization to \(bits) bits")
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw Failure(message: "value \(bad + 1) of \(values.count) is \(values[bad]), which no quantization level can hold")
        }
        if bits == 8 {
            return mapLevels(values, bits: bits, mode: mode, layout: layout, into: packed.bindMemory(to: UInt8.self))
        }
        var levels = [UInt8](repeating: 0, count: values.count)
        let mapping = levels.withUnsafeMutableBufferPointer { mapLevels(values, bits: bits, mode: mode, layout: layout, into: $0) }
        levels.withUnsafeBufferPointer { pack($0, bits: bits, into: packed) }
        return mapping
    }

    /// Each value's level into `levels`, and the mapping back.
    static func mapLevels(_ values: UnsafeBufferPointer<Float>, bits: Int, mode: QuantizationMode, layout: ChannelLayout,
                                  into levels: UnsafeMutableBufferPointer<UInt8>) -> QuantizationMapping {
        let mapping: QuantizationMapping
        switch mode {
        case .linear, .linearSymmetric:
            let (scale, bias) = linearLevels(values, bits: bits, symmetric: mode == .linearSymmetric, layout: layout, into: levels)
            mapping = .linear(scale: scale, bias: bias)
        case .linearLookupTable:
            let (scale, bias) = linearLevels(values, bits: bits, symmetric: false, layout: .whole(values.count), into: levels)
            mapping = .lookupTable((0..<1 << bits).map { Float(Double($0) * Double(scale[0]) + Double(bias[0])) })
        case .kmeansLookupTable:
            let table = KMeansTable.table(for: values, entries: 1 << bits)
            table.assign(values, into: levels)
            mapping = .lookupTable(table.entries)
        }
        return mapping
    }

    /// Fills `levels` with each value's linear level and returns the
    /// per-channel scale and bias. coremltools' `_quantize_channelwise_linear`
    /// works on `np.array(wp.floatValue)`, which is float32, so every step
    /// here is float32 too (Python's float constants do not widen numpy's
    /// float32 arrays), rounding half to even like `np.round`.
    private static func linearLevels(_ values: UnsafeBufferPointer<Float>, bits: Int, symmetric: Bool, layout: ChannelLayout,
                                     into levels: UnsafeMutableBufferPointer<UInt8>) -> (scale: [Float], bias: [Float]) {
        var low = [Float](repeating: .infinity, count: layout.channels)
        var high = [Float](repeating: -.infinity, count: layout.channels)
        forEachRun(values.count, layout) { channel, range in
            for value in values[range] {
                low[channel] = min(low[channel], value)
                high[channel] = max(high[channel], value)
            }
        }
        let top = Float((1 << bits) - 1), half = Float(1 << bits) / 2
        let scales = (0..<layout.channels).map { symmetric ? max(abs(low[$0]), abs(high[$0])) / (half - 1) : (high[$0] - low[$0]) / top }
        let biases = symmetric ? scales.map { -half * $0 } : low
        forEachRun(values.count, layout) { channel, range in
            let (scale, bias) = (scales[channel], biases[channel])
            let usable = abs(scale) > Float(1e-6)
            let inverse = usable ? 1 / scale : 0
            for index in range {
                // coremltools divides in the symmetric mode and multiplies by the inverse in the other.
                let level = symmetric ? (usable ? (values[index] - bias) / scale : 0) : (values[index] - bias) * inverse
                levels[index] = UInt8(min(max(level.rounded(.toNearestOrEven), 0), top))
            }
        }
        return (scales, biases)
    }

    /// Calls `body` with each run of values that shares a channel.
    private static func forEachRun(_ count: Int, _ layout: ChannelLayout, _ body: (Int, Range<Int>) -> Void) {
        var start = 0, run = 0
        while start < count {
            let end = min(start + layout.inner, count)
            body(run % layout.channels, start..<end)
            start = end
            run += 1
        }
    }

    /// How levels of fewer than 8 bits are packed into bytes.
    enum BitOrder {
        /// A NeuralNetwork's `rawValue`: each byte filled from its most
        /// significant bit down, each level its most significant bit first.
        case mostSignificantFirst
        /// An ML program's `constexpr_lut_to_dense` indices: each byte filled
        /// from its least significant bit up, each level its least
        /// significant bit first (a level split across two bytes: its low
        /// bits at the top of the first).
        case leastSignificantFirst
    }

    /// `levels` at `bits` each into zeroed `packed` in `order`, the last
    /// byte padded with zero bits.
    static func pack(_ levels: UnsafeBufferPointer<UInt8>, bits: Int, into packed: UnsafeMutableRawBufferPointer,
                     order: BitOrder = .mostSignificantFirst) {
        var bit = 0
        for level in levels {
            for step in 0..<bits {
                let position = order == .mostSignificantFirst ? bits - 1 - step : step
                if level >> position & 1 == 1 { packed[bit >> 3] |= order == .mostSignificantFirst ? 0x80 >> (bit & 7) : 1 << (bit & 7) }
                bit += 1
            }
        }
    }

    /// The level of value `index` in `packed` at `bits` each, in `order`.
    @inline(__always)
    static func level(_ packed: UnsafeRawBufferPointer, bits: Int, at index: Int, order: BitOrder = .mostSignificantFirst) -> Int {
        if bits == 8 { return Int(packed[index]) }
        var level = 0, bit = index * bits
        for step in 0..<bits {
            if order == .mostSignificantFirst {
                level = level << 1 | Int(packed[bit >> 3] >> (7 - bit & 7) & 1)
            } else {
                level |= Int(packed[bit >> 3] >> (bit & 7) & 1) << step
            }
            bit += 1
        }
        return level
    }

    /// The float values of `count` quantized values in `packed` (which
    /// holds enough bytes), computed in float64 as coremltools'
    /// `_dequantize_wp` does and stored as float32.
    static func dequantize(_ packed: UnsafeRawBufferPointer, count: Int, bits: Int, mapping: QuantizationMapping,
                           layout: ChannelLayout, into target: UnsafeMutableBufferPointer<Float>) {
        switch mapping {
        case .lookupTable(let table):
            for index in 0..<count { target[index] = table[level(packed, bits: bits, at: index)] }
        case .linear(let scale, let bias):
            forEachRun(count, layout) { channel, range in
                let entry = scale.count == 1 ? 0 : channel
                let (s, b) = (Double(scale[entry]), bias.isEmpty ? 0 : Double(bias[entry]))
                for index in range { target[index] = Float(Double(level(packed, bits: bits, at: index)) * s + b) }
            }
        }
    }
}
