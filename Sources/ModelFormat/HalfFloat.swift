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
