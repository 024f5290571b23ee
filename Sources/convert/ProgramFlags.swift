import CLI
import CoreMLBackend
import ModelFormat

/// `--convert-to`: coremltools' convert_to, the kind of model written: a
/// NeuralNetwork `.mlmodel` file (the default) or an ML Program
/// `.mlpackage` folder computing in float16 (coremltools' default) or float32.
enum ProgramFlags {
    static let option = Option(
        "convert-to", valueName: "neuralnetwork|mlprogram", default: "neuralnetwork",
        help: "The kind of model, as coremltools' convert_to: neuralnetwork (default; a single .mlmodel file) or mlprogram "
            + "(an ML Program, iOS 15: an .mlpackage folder given to -o), computing in float16 as coremltools does by default, "
            + "or float32 (--compute-precision); image and array inputs, classifiers, the classic layers and the rank-N tensor operations; "
            + "a detector is the pipeline a .mlmodel holds, the network an "
            + "ML program in it; a layer the program writer does not write yet is refused by name. With --quantize-weights, "
            + "constants of 2048 values or more are compressed as coremltools' constexpr operations (iOS 16): 8-bit linear "
            + "(constexpr_affine_dequantize) or a lookup table of 1, 2, 4, 6 or 8 bits (constexpr_lut_to_dense); 4-bit linear, 3-bit "
            + "tables, --block-size and --group-size are iOS 18's forms (constexpr_blockwise_shift_scale).").spec
    static let precisionOption = Option(
        "compute-precision", valueName: "float32|float16",
        help: "The precision an ML program (--convert-to mlprogram) computes and stores its weights in, as coremltools' "
            + "compute_precision: float16 (default, as coremltools': float32 inputs and outputs, float16 weights and operations) "
            + "or float32. A NeuralNetwork's weights: --precision.").spec

    /// `--convert-to` as spelled, lowercased and without underscores (coremltools' "ml_program" too).
    static func kind(_ arguments: ParsedArguments) throws -> String {
        try arguments.string("convert-to").lowercased().replacingOccurrences(of: "_", with: "")
    }

    /// The compute precision of the ML Program the options ask for (nil:
    /// a NeuralNetwork), after checking what must go with it: an
    /// `.mlpackage` output, and no NeuralNetwork weight options.
    static func programPrecision(_ arguments: ParsedArguments, path: String, extension dot: String?, precision: Precision?,
                                 granularity: CompressionGranularity) throws -> Precision? {
        let compute = arguments.optionalString("compute-precision")
        let kind = try self.kind(arguments)
        switch kind {
        case "neuralnetwork":
            if dot == "mlpackage" {
                throw UsageError("--output \(path): an .mlpackage folder holds an ML program: add --convert-to mlprogram, "
                                 + "or write the single-file NeuralNetwork format with -o \(path.dropLast("mlpackage".count))mlmodel")
            }
            if let compute {
                throw UsageError("--compute-precision \(compute) is an ML program's (--convert-to mlprogram); a NeuralNetwork "
                                 + "stores its weights as --precision says")
            }
            return nil
        case "mlprogram":
            guard dot == "mlpackage" else {
                throw UsageError("--output \(path): --convert-to mlprogram writes an .mlpackage folder: give -o Name.mlpackage")
            }
            if let precision, !precision.isQuantized {
                throw UsageError("--precision is a NeuralNetwork's: an ML program stores its weights as it computes, --compute-precision")
            }
            if let precision, let refusal = MLProgramWriter.refusal(compressing: precision, granularity: granularity) {
                throw UsageError("--quantize-weights with --convert-to mlprogram: \(refusal)")
            }
            let computePrecision: Precision
            switch compute?.lowercased() {
            case "float32": computePrecision = .float32
            case "float16", nil: computePrecision = .float16
            case let other?:
                throw UsageError("--compute-precision takes float32 or float16, not '\(other)'")
            }
            return computePrecision
        default:
            throw UsageError("--convert-to takes neuralnetwork or mlprogram, not '\(kind)'")
        }
    }
}
