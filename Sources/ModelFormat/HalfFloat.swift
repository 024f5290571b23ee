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
        if magnitude >= 0x7f80_0000 {  // infinity or NaN
            let payload = (magnitude & 0x7f_ffff) >> 13
            return sign | 0x7c00 | UInt16(magnitude == 0x7f80_0000 ? 0 : Swift.max(payload, 1))
        }
        if magnitude >= 0x4780_0000 { return sign | 0x7c00 }  // 2^16 and above
        let exponent = Int(magnitude >> 23)
        let significand = magnitude & 0x7f_ffff | (exponent == 0 ? 0 : 0x80_0000)
        // Half's unit in the last place: 2^-24 below 2^-14 (subnormals), else 2^(e-10).
        let shift = exponent < 113 ? Swift.min(126 - exponent, 25) : 13
        var half = exponent < 113 ? significand >> shift : UInt32(exponent - 112) << 10 | significand >> 13 & 0x3ff
        let rest = significand & (1 << shift - 1), halfway = UInt32(1) << (shift - 1)
        if rest > halfway || rest == halfway && half & 1 == 1 { half += 1 }  // a carry moves into the exponent, as it should
        return sign | UInt16(half)
    }
}
