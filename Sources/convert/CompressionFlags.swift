import CLI
import CoreMLBackend
import ModelFormat
import Naming

/// `--precision`, `--quantize-weights`, `--quantization`, `--block-size`, `--group-size` and `--probe`:
/// how the written model stores its weights, and the input the fidelity
/// report runs on. Part of every subcommand's output options.
enum CompressionFlags {
    static let options: [OptionSpec] = [
        Option("precision", valueName: "float32|float16", otherSpellings: ["model-precision"],
               help: "Store the weights as float16 (half the size; Core ML specification 2) or float32 (default: as the source stores them, "
                   + "float32 for Caffe, TensorFlow and Keras).").spec,
        Option("quantize-weights", valueName: "bits", otherSpellings: ["nbits"],
               help: "Store convolution, inner-product, batch-norm, scale, bias and constant weights in 1 to 8 bits (specification 3); "
                   + "other layers stay float. In an ML program (--convert-to mlprogram): every constant of 2048 values or more, as "
                   + "iOS 16's constexpr operations (8-bit linear; lookup tables of 1, 2, 4, 6 or 8 bits), or iOS 18's "
                   + "(4-bit linear, 3-bit tables, --block-size, --group-size; the package then loads on iOS 18 and later).").spec,
        Option("quantization", valueName: "mode", otherSpellings: ["quantization-mode"],
               help: "How --quantize-weights maps levels to values, as coremltools' quantize_weights: linear (default; per output channel), "
                   + "linear-symmetric (8 bits; 4 in an ML program), linear-lut, kmeans-lut.").spec,
        Option("block-size", valueName: "N",
               help: "With --convert-to mlprogram and a linear --quantization, as coremltools' granularity per_block: a scale per "
                   + "output channel and per N values along the input axis (iOS 18's constexpr_blockwise_shift_scale; 4-bit symmetric "
                   + "with 32 is Apple's usual choice). A constant whose input axis N does not divide stays float, as coremltools leaves it.").spec,
        Option("group-size", valueName: "N",
               help: "With --convert-to mlprogram and a lookup table --quantization, as coremltools' granularity "
                   + "per_grouped_channel: a table per N output channels (iOS 18's constexpr_lut_to_dense). A constant whose "
                   + "output channels N does not divide stays float.").spec,
        Option("probe", valueName: "image|name=x.npy", repeatable: true,
               help: "The input on which the fidelity report printed after a compressed conversion (not with -q) runs the float "
                   + "and the compressed model (default: seeded random values, 0-255 for an image input, [0, 1) for an array).").spec,
    ]

    /// The precision the options ask for; nil when they ask for none.
    static func precision(_ arguments: ParsedArguments) throws -> Precision? {
        let floats = arguments.optionalString("precision")
        guard let bitsText = arguments.optionalString("quantize-weights") else {
            if let mode = arguments.optionalString("quantization") {
                throw UsageError("--quantization \(mode) says how to quantize: give the bits with --quantize-weights")
            }
            guard let floats else { return nil }
            guard let precision = Precision.floatNames[floats.lowercased()], precision != .float64 else {
                throw UsageError("--precision takes float32 or float16, not '\(floats)'")
            }
            return precision
        }
        if let floats { throw UsageError("--precision \(floats) and --quantize-weights \(bitsText): choose one") }
        guard let bits = Int(bitsText), (1...8).contains(bits) else {
            throw UsageError("--quantize-weights takes a number of bits from 1 to 8, not '\(bitsText)' (for 16, use --precision float16)")
        }
        let modeText = arguments.optionalString("quantization") ?? "linear"
        let spelled = modeText.lowercased().replacingOccurrences(of: "_", with: "-")
        guard let mode = QuantizationMode(rawValue: spelled == "kmeans" ? "kmeans-lut" : spelled) else {
            throw UsageError("--quantization takes \(QuantizationMode.allCases.map(\.rawValue).joined(separator: ", ")), not '\(modeText)'")
        }
        return .quantized(bits: bits, mode)
    }

    /// The granularity `--block-size` or `--group-size` asks for (`.perChannel` without either), checked against
    /// `precision` and whether the model is a `program`.
    static func granularity(_ arguments: ParsedArguments, precision: Precision?, program: Bool) throws -> CompressionGranularity {
        if !program, case .quantized(let bits, .linearSymmetric)? = precision, bits != 8 {
            throw UsageError("--quantization linear-symmetric is for 8 bits, not \(bits) (4 in an ML program: --convert-to mlprogram)")
        }
        let block = arguments.optionalString("block-size"), group = arguments.optionalString("group-size")
        guard let (flag, text) = block.map({ ("block-size", $0) }) ?? group.map({ ("group-size", $0) }) else { return .perChannel }
        if block != nil, group != nil { throw UsageError("--block-size and --group-size: choose one (blocks are linear, groups share a table)") }
        guard program, precision?.isQuantized == true else {
            throw UsageError("--\(flag) is a compressed ML program's: add --convert-to mlprogram and --quantize-weights")
        }
        guard let size = Int(text), (1...(1 << 20)).contains(size) else {
            throw UsageError("--\(flag) takes a number of values from 1 to 1048576, not '\(TextEscaping.line(text))'")
        }
        return block != nil ? .perBlock(size: size) : .perGroupedChannel(size: size)
    }
}
