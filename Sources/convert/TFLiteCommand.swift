import CLI
import Conversion
import ModelFiles
import TFLiteFrontend

/// `convert tflite`: a float, float16 or quantized TFLite / LiteRT model -> .mlmodel.
enum TFLiteCommand: Command {
    static let configuration = CommandConfiguration(
        name: "tflite", abstract: "Convert a float, float16 or quantized TFLite / LiteRT model (.tflite) to Core ML.",
        discussion: """
            Reads the flatbuffer (schema version 3) over the mapped file and converts its first subgraph: the builtin \
            operators of image classifiers (convolutions, depthwise convolutions, fully connected layers, pooling, \
            ADD/MUL/SUB with their fused activations, RESHAPE, SOFTMAX, CONCATENATION, PAD, MEAN, HARD_SWISH, \
            LOGISTIC, RELU, RELU6, RESIZE_BILINEAR (by fractional factors too, with align_corners or half_pixel_centers) \
            and RESIZE_NEAREST_NEIGHBOR to whole multiples), NHWC tensors as Core ML's [C, H, W]. float16 weights (behind DEQUANTIZE) are widened \
            to float32 (exactly: --precision float16 writes the file's own values); int8 kernels of dynamic-range \
            models stay 8-bit where Core ML's linear-symmetric weights hold the same levels and scales (one per output \
            channel), others are widened; activations are computed in float; the summary's tflite.weights says which. \
            Full-integer models (int8 or uint8 activations with one scale) are computed in float: their QUANTIZE and \
            DEQUANTIZE are dropped, int32 biases widened. A UINT8 or INT8 graph input [1, H, W, 1 or 3] (MediaPipe's and \
            Model Maker's classifiers) becomes an image whose preprocessing is its dequantization, scale * (pixel - zero \
            point) (an INT8 level being pixel - 128), not the metadata's normalization (it describes the float model); \
            preprocessing options replace it; a quantized output is dequantized; tflite.input and tflite.output say so. \
            Feature names come from the tensors' names, characters other than letters, digits and '_' made '_' \
            (serving_default_input:0 is serving_default_input_0). Every operator the converter cannot map is \
            reported in one error: name, count and first output tensor. \
            The model's TFLite metadata (as tflite-support's writers add it) gives what no option gives: the output's \
            labels file (zipped onto the model, stored or deflated) makes a classifier, the input's normalization (value - mean) / std on \
            0-255 pixels makes it an image input with that preprocessing, and the descriptions carry over; \
            --class-labels, --image-input and the preprocessing options override it.
            """,
        examples: [
            ("A classifier with TFLite metadata: labels and preprocessing from the file", "coreml-convert tflite labelled.tflite -o Classifier.mlmodel"),
            ("A classifier without metadata, app-ready: pixels to [-1, 1], labelled",
             "coreml-convert tflite classifier.tflite --image-input serving_default_image_0 --mean 0.5,0.5,0.5 "
                 + "--std 0.5,0.5,0.5 --class-labels labels.txt -o Classifier.mlmodel"),
            ("The same taking images as they are, with its Swift classes",
             "coreml-convert tflite classifier.tflite --image-input serving_default_image_0 --generate-classes -o Classifier.mlmodel"),
        ])
    static let options = Options(ConversionFlags.modelFileOptions("model.tflite", "The TFLite model.", layout: "1,H,W,C")
                                 + ConversionFlags.normalizationOptions)

    static func run(_ arguments: ParsedArguments) throws {
        if !(try ConversionFlags.inputShapes(arguments)).isEmpty {
            throw UsageError("--input-shape: a TFLite model states its input shapes; they cannot be changed")
        }
        try ConversionFlags.convertModelFile(arguments, .tflite, featureName: FeatureName.sanitized) { source, options, _ in
            try TFLiteConverter.convert(model: source, options: options)
        }
    }
}
