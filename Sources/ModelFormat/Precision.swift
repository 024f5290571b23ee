/// How weight values are stored in a file: as floats of a width, or
/// quantized to a few bits per value. A model read from a file carries the
/// precision each tensor was stored in (`Weights.storedPrecision`); a
/// writer stores each tensor so again where the format allows it.
public enum Precision: Hashable, Sendable, Comparable {
    case float16, float32, float64
    /// `bits` (1 to 8) per value, unsigned, and how they map back to floats.
    case quantized(bits: Int, QuantizationMode)

    /// The precisions a float tensor can be written in by name
    /// (`--precision`): `float16`, `float32`.
    public static let floatNames: [String: Precision] = ["float16": .float16, "float32": .float32, "float64": .float64]

    /// `float32`, or `8-bit linear`, `4-bit lookup table`.
    public var name: String {
        switch self {
        case .float16: "float16"
        case .float32: "float32"
        case .float64: "float64"
        case .quantized(let bits, let mode): "\(bits)-bit \(mode.usesLookupTable ? "lookup table" : "linear")"
        }
    }

    public var bitsPerValue: Int {
        switch self {
        case .float16: 16
        case .float32: 32
        case .float64: 64
        case .quantized(let bits, _): bits
        }
    }

    public var isQuantized: Bool {
        if case .quantized = self { true } else { false }
    }

    /// Bytes a tensor of `count` values takes stored so: its values packed
    /// (whole bytes) plus, for a lookup table, the table's 2^bits floats.
    /// (A linear tensor's scale and bias, a few floats per channel, are left out.)
    public func bytes(count: Int) -> Int {
        let packed = (count * bitsPerValue + 7) / 8
        if case .quantized(let bits, let mode) = self, mode.usesLookupTable { return packed + 4 << bits }
        return packed
    }

    /// Narrowest first; for the same width, linear before lookup table.
    public static func < (lhs: Precision, rhs: Precision) -> Bool {
        (lhs.bitsPerValue, lhs.name) < (rhs.bitsPerValue, rhs.name)
    }
}

/// How quantized values map back to floats, named as coremltools'
/// `quantize_weights` modes.
public enum QuantizationMode: String, Sendable, CaseIterable {
    /// Per output channel: `value = scale * q + bias`, with the channel's
    /// minimum as bias and its range spread over the 2^bits levels.
    case linear
    /// Per output channel, around zero: `bias = -2^(bits-1) * scale`, with
    /// the channel's largest magnitude at level 2^bits - 1 (8 bits only).
    case linearSymmetric = "linear-symmetric"
    /// One table of 2^bits evenly spaced values from the tensor's minimum to
    /// its maximum.
    case linearLookupTable = "linear-lut"
    /// One table of 2^bits values placed by k-means clustering.
    case kmeansLookupTable = "kmeans-lut"

    public var usesLookupTable: Bool { self == .linearLookupTable || self == .kmeansLookupTable }
}
