import Conversion
import ModelFormat

/// A graph input or output of UINT8 or INT8 levels with one scale and zero
/// point (TFLiteConverter's inference_input_type / inference_output_type
/// tf.uint8 or tf.int8, as MediaPipe and Model Maker image classifiers
/// have): the level q stands for the real value `scale * (q - zeroPoint)`.
///
/// - An input [1, H, W, 1 or 3] becomes an image input whose preprocessing
///   is that dequantization: a pixel p (0-255) is LiteRT's UINT8 level
///   itself, or the INT8 level p - 128, so the network gets
///   `scale * p - scale * zeroPoint` (UINT8) or
///   `scale * p - scale * (zeroPoint + 128)` (INT8): Core ML's image scale
///   and per-channel biases. The metadata's normalization is not applied to
///   such an input: it describes the float model (tflite-support's writers
///   put mean 0 std 1, or the float model's, on quantized inputs), and
///   LiteRT, MediaPipe and the Task Library feed a UINT8 input the pixels
///   as they are. Preprocessing options, when given, replace the
///   dequantization (they then give the real values). Any other quantized
///   input (a vector, a map of other channel counts) is refused by name:
///   its Core ML array would take real values where LiteRT takes levels.
/// - An output is dequantized: the graph is computed in float, so the
///   Core ML output gives the real values (not rounded to the levels).
struct TFLiteQuantizedFeature {
    var feature: String
    var tensor: String
    var type: Int8
    var scale: Float
    var zeroPoint: Int
    /// An input image's channels (1 or 3).
    var channels = 0

    /// The level that stands for a pixel value 0 (UINT8 0, INT8 -128).
    var pixelOffset: Int { type == 9 ? -128 : 0 }

    /// `tensor`'s quantization, nil when it is not a UINT8 or INT8 tensor
    /// with one scale.
    /// - Throws: a message for a scale or zero point that cannot be one.
    static func read(_ tensor: TFLiteModel.Tensor, feature: String) throws(TFLiteOpError) -> TFLiteQuantizedFeature? {
        guard [3, 9].contains(tensor.type), tensor.scales.count == 1 else { return nil }
        let scale = tensor.scales[0], range = tensor.type == 3 ? 0...255 : -128...127
        guard scale > 0, scale.isNormal, (scale * 255).isFinite else {
            throw TFLiteOpError("'\(tensor.name)' has the quantization scale \(scale); a positive normal float is expected")
        }
        guard tensor.zeroPoints.count <= 1, let zero = Int(exactly: tensor.zeroPoints.first ?? 0), range.contains(zero) else {
            throw TFLiteOpError("'\(tensor.name)' has the zero points \(tensor.zeroPoints); one in \(range) is expected for "
                                + TFLiteModel.typeName(tensor.type))
        }
        return TFLiteQuantizedFeature(feature: feature, tensor: tensor.name, type: tensor.type, scale: scale, zeroPoint: zero)
    }

    var typeName: String { TFLiteModel.typeName(type) }
    /// "- 3", "+ 128": a zero point subtracted, as a reader writes it.
    static func minus(_ value: Int) -> String { value < 0 ? "+ \(-value)" : "- \(value)" }
    var levels: String { "\(typeName) (scale \(scale), zero point \(zeroPoint))" }
}

extension TFLiteWalk {
    /// A graph input or output that is neither FLOAT32 nor a quantized one
    /// this converter takes (`TFLiteQuantizedFeature`): refused by name.
    func refuseInterface(_ tensor: TFLiteModel.Tensor, _ what: String) throws {
        guard tensor.type != 0 || tensor.isQuantized else { return }
        throw fail("the \(what) '\(tensor.name)' is \(TFLiteModel.typeName(tensor.type))\(tensor.isQuantized ? " with quantization parameters" : ""): "
                   + "FLOAT32 inputs and outputs are converted, and UINT8 or INT8 ones with one scale (an input as an image [1, H, W, 1 or 3])")
    }

    /// The quantized input `tensor` (mapped to `dims`, [C, H, W] for a map),
    /// nil for a float one. - Throws: `TFLiteError` for one that cannot be an image.
    func quantizedInput(_ tensor: TFLiteModel.Tensor, feature: String, dims: [Int], rank: Int) throws -> TFLiteQuantizedFeature? {
        let quantized: TFLiteQuantizedFeature?
        do { quantized = try TFLiteQuantizedFeature.read(tensor, feature: feature) } catch { throw fail("the input \(error.message)") }
        guard let quantized else { try refuseInterface(tensor, "input"); return nil }
        guard rank == 4, [1, 3].contains(dims[0]) else {
            throw fail("the input '\(tensor.name)' is \(quantized.levels) of shape \(tensor.shape): a quantized input is converted as an image "
                       + "[1, H, W, 1 or 3] whose preprocessing dequantizes the pixels; a Core ML array would take real values where LiteRT takes levels")
        }
        var input = quantized
        input.channels = dims[0]
        return input
    }

    /// The quantized output `tensor` (dequantized), nil for a float one.
    func quantizedOutput(_ tensor: TFLiteModel.Tensor, feature: String) throws -> TFLiteQuantizedFeature? {
        let quantized: TFLiteQuantizedFeature?
        do { quantized = try TFLiteQuantizedFeature.read(tensor, feature: feature) } catch { throw fail("the output \(error.message)") }
        if quantized == nil { try refuseInterface(tensor, "output") }
        return quantized
    }
}

extension TFLiteQuantizedFeature {
    /// Makes each quantized input an image whose preprocessing dequantizes
    /// the pixels, unless the user gave preprocessing (then theirs gives
    /// the real values), and says in the user-defined metadata (the
    /// summary) what each quantized input and output became.
    /// - Parameter metadata: the model's, whose normalization of a quantized input is named as not applied.
    static func apply(inputs: [TFLiteQuantizedFeature], outputs: [TFLiteQuantizedFeature], metadata: TFLiteMetadata?, to options: inout ConversionOptions, path: String) throws {
        let userGave = options.normalization != nil || !options.givenPreprocessing.isEmpty
        for (position, input) in inputs.enumerated() {
            if !options.imageInputNames.contains(input.feature) {
                guard options.imageInputNames.isEmpty else {
                    throw TFLiteError("\(path): the input '\(input.tensor)' is \(input.levels) and is not among the image inputs named "
                                      + "(\(options.imageInputNames.joined(separator: ", "))); a quantized input is converted as an image")
                }
                options.imageInputNames = [input.feature]
            }
            var note: String
            if userGave {
                note = "'\(input.feature)' takes \(input.levels) levels: the preprocessing given replaces their dequantization "
                    + "(it must give the real values)"
            } else {
                guard position == 0 else {
                    throw TFLiteError("\(path): the inputs '\(inputs[0].tensor)' and '\(input.tensor)' are quantized; one quantized input is converted")
                }
                let bias = -input.scale * Float(input.zeroPoint - input.pixelOffset)
                options.imageScale = input.scale
                if input.channels == 1 { options.grayBias = bias } else { (options.redBias, options.greenBias, options.blueBias) = (bias, bias, bias) }
                let level = input.type == 9 ? "(pixel - 128) \(minus(input.zeroPoint)) = \(input.scale) * (pixel \(minus(input.zeroPoint + 128)))"
                    : "pixel \(minus(input.zeroPoint))"
                note = "'\(input.feature)' takes \(input.levels) levels: an image whose preprocessing is their dequantization, "
                    + "\(input.scale) * (\(level)) (scale \(input.scale), bias \(bias))"
            }
            if let info = metadata?.inputs.first, position == 0, !info.mean.isEmpty || !info.std.isEmpty {
                note += "; the metadata's normalization (mean \(info.mean.map { "\($0)" }.joined(separator: ",")), std "
                    + "\(info.std.map { "\($0)" }.joined(separator: ","))) is not applied: it describes the float model, and LiteRT "
                    + "and MediaPipe feed a quantized input the pixels"
            }
            options.metadata.userDefined.append(("tflite.input", note))
        }
        for output in outputs {
            options.metadata.userDefined.append(("tflite.output", "'\(output.tensor)' gives \(output.levels) levels in the file: dequantized, "
                                                 + "the real values \(output.scale) * (q \(minus(output.zeroPoint))) computed in float (not rounded to the levels)"))
        }
    }
}
