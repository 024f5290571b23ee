import ModelFormat

/// How `MLProgramWriter` writes a program: the precision it computes in,
/// the specification version it loads on (and so its opset), and how its
/// large constants are stored.
struct ProgramOptions {
    var float16 = false
    /// 6 (iOS 15, opset CoreML5) or 7 (iOS 16, CoreML6: the first with
    /// compressed constants). The operations written are the same in both:
    /// of those `ProgramLowering` writes, coremltools' iOS16 definitions
    /// change only `upsample_bilinear`, adding `half_pixel_centers`, whose
    /// default (`!align_corners`) is iOS 15's sampling.
    var specificationVersion: Int32 = 6
    /// A quantized precision: constants of `ProgramBuilder.compressionThreshold`
    /// values or more compressed so (`ProgramBuilder+Compression`); nil: none.
    var compression: Precision?

    static let versions: ClosedRange<Int32> = 6...7

    var opset: String { specificationVersion >= 7 ? "CoreML6" : "CoreML5" }

    /// Why `precision` cannot compress a program's constants (nil: it can).
    static func refusal(compressing precision: Precision) -> String? {
        guard case .quantized(let bits, let mode) = precision else { return "a program's weights are stored as it computes" }
        if mode.usesLookupTable, !Quantizer.lookupTableBits.contains(bits) {
            return "a program's lookup table (constexpr_lut_to_dense) holds 1, 2, 4, 6 or 8 bits, not \(bits)"
        }
        if !mode.usesLookupTable, bits != 8 {
            return "a program holds linear quantization in 8 bits (constexpr_affine_dequantize), not \(bits): "
                + "use 8, or a lookup table (linear-lut, kmeans-lut) for fewer bits"
        }
        return nil
    }
}
