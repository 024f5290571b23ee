import ModelFormat

/// How `MLProgramWriter` writes a program: the precision it computes in,
/// the specification version it loads on (and so its opset), and how its
/// large constants are stored.
struct ProgramOptions {
    var float16 = false
    /// 6 (iOS 15, opset CoreML5), 7 (iOS 16, CoreML6: the first with
    /// compressed constants), 8 (iOS 17, CoreML7) or 9 (iOS 18, CoreML8).
    /// The operations written are the same in each but the compressed
    /// constants' (iOS 18's forms from 9 on): of those `ProgramLowering`
    /// writes, coremltools' iOS16 definitions change only
    /// `upsample_bilinear`, adding `half_pixel_centers`, whose default
    /// (`!align_corners`) is iOS 15's sampling; its iOS17 ones widen type
    /// domains (a parameter may differ from x in precision, an index may be a
    /// narrower integer), give `reduce_argmax` an `output_dtype` whose
    /// default is int32 as before, and require clip's alpha < beta (a clip
    /// whose bounds meet is written as maximum and minimum at every
    /// version); iOS18 redefines `constexpr_lut_to_dense` only.
    var specificationVersion: Int32 = 6
    /// A quantized precision: constants of `ProgramBuilder.compressionThreshold`
    /// values or more compressed so (`ProgramBuilder+Compression`); nil: none.
    var compression: Precision?
    var granularity = CompressionGranularity.perChannel

    static let versions: ClosedRange<Int32> = 6...9
    /// iOS 16's compressed constants; iOS 18's forms (4-bit linear levels, 3-bit tables, blocks, groups).
    static let compressedVersion: Int32 = 7, blockwiseVersion: Int32 = 9

    /// Whether compressed constants are written in iOS 18's forms (`constexpr_blockwise_shift_scale`, the tables
    /// per block of `constexpr_lut_to_dense`, parameters bound as inputs).
    var writesBlockwise: Bool { specificationVersion >= Self.blockwiseVersion }

    /// The oldest specification version that holds `precision`'s compressed constants at `granularity`.
    static func specificationVersion(compressing precision: Precision, granularity: CompressionGranularity) -> Int32 {
        guard case .quantized(let bits, let mode) = precision else { return versions.lowerBound }
        let iOS16 = granularity == .perChannel && (mode.usesLookupTable ? bits != 3 : bits == 8)
        return iOS16 ? compressedVersion : blockwiseVersion
    }

    /// Specification 6's opset is CoreML5, 7's CoreML6, 8's CoreML7.
    var opset: String { "CoreML\(specificationVersion - 1)" }

    /// Why `precision` cannot compress a program's constants at `granularity` (nil: it can).
    static func refusal(compressing precision: Precision, granularity: CompressionGranularity = .perChannel) -> String? {
        guard case .quantized(let bits, let mode) = precision else { return "a program's weights are stored as it computes" }
        if mode.usesLookupTable, !Quantizer.lookupTableBits.contains(bits) {
            return "a program's lookup table (constexpr_lut_to_dense) holds 1, 2, 3 (iOS 18), 4, 6 or 8 bits, not \(bits)"
        }
        if !mode.usesLookupTable, !Quantizer.programLinearBits.contains(bits) {
            return "a program holds linear quantization in 8 bits, or 4 (iOS 18's constexpr_blockwise_shift_scale), not \(bits): "
                + "use 8 or 4, or a lookup table (linear-lut, kmeans-lut) for other bits"
        }
        switch granularity {
        case .perBlock(let size) where size < 1, .perGroupedChannel(let size) where size < 1:
            return "a block or group of \(size) values"
        case .perBlock where mode.usesLookupTable:
            return "blocks of a scale are linear quantization's; a lookup table is shared by groups of output channels"
        case .perGroupedChannel where !mode.usesLookupTable:
            return "groups of output channels share a lookup table; linear quantization has blocks"
        default:
            return nil
        }
    }
}
