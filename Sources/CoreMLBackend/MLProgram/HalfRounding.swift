import ModelFormat
import Naming

/// Float32 constants as coremltools' `FP16ComputePrecision` pass
/// (passes/defs/quantization.py) casts them for a program computing in
/// float16 (iOS 15): each value rounded to the nearest float16 (ties to
/// even); in a constant of fewer than 400 values, a value that rounds to
/// zero but is not itself within float32's smallest subnormal of zero made
/// the smallest float16 subnormal of its sign (`_check_underflow_to_zero`,
/// whose `np.isclose` takes ±1.4e-45 for zero). A finite value of 1e38 or
/// more is saturated to ±65504, as coremltools' main branch does
/// (`_check_overflow_to_inf`, after 9.0: an attention mask's float32 minimum
/// made -infinity gave NaN in softmax); coremltools 9.0 writes infinity
/// there (Tests/Fixtures/coreml/half_rounding.json, made by 9.0, records
/// both). A constant holding a finite value over 65504 and under 1e38 keeps
/// its operation in float32 in coremltools (`fp16_overflow`);
/// `ProgramBuilder` refuses it instead.
enum HalfRounding {
    static let largest: Float = 65504
    /// The pass's smallest-subnormal rule holds for constants of fewer values than this.
    static let underflowRuleLimit = 400

    /// Whether `value` keeps an operation in float32 in coremltools.
    static func overflows(_ value: Float) -> Bool {
        abs(value) > largest && abs(value) < 1e38
    }

    /// Whether a value whose `halfBits` are `half` may be one that
    /// `overflows`: only one that is cast to the largest half (65504 to
    /// 65520), to infinity or to NaN.
    static func mayOverflow(_ half: UInt16) -> Bool {
        half & 0x7fff >= 0x7bff
    }

    /// The refusal of a constant holding a value `overflows` accepts.
    static func overflowError(constant: String) -> ModelError {
        ModelError("constant '\(constant)': a value beyond float16's range (65504), which keeps its operation in float32 in coremltools; "
                   + "this version computes a program wholly in one precision: give \(option: .computePrecision) float32")
    }

    /// The float16 bit pattern `value` is cast to in a constant of `count` values.
    static func bits(_ value: Float, count: Int) -> UInt16 {
        // ModelFormat's halfBits, not Float16 (which macOS on Intel lacks): ties to even, as the pass casts.
        let half = value.halfBits
        // Most values: a non-zero half below the largest, which no rule of the pass touches.
        if !mayOverflow(half), half & 0x7fff != 0 { return half }
        if value.isFinite, abs(value) >= 1e38 { return (value.sign == .minus ? -largest : largest).halfBits }
        if half & 0x7fff == 0, abs(value) > .leastNonzeroMagnitude, count < underflowRuleLimit { return value.sign == .minus ? 0x8001 : 0x0001 }
        return half
    }

    /// `values` as `bits(_:count:)` casts them, the constant's size their count.
    static func bits(_ values: [Float]) -> [UInt16] {
        values.map { bits($0, count: values.count) }
    }

    /// The float32 value of a float16 bit pattern.
    static func value(_ bits: UInt16) -> Float {
        Float(halfBits: bits)
    }
}
