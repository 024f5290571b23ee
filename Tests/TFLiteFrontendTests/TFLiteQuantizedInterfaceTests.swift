import Conversion
import CoreMLBackend
import Foundation
import Images
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

/// Full-integer models whose graph inputs and outputs are UINT8 or INT8
/// levels (make_tflite_fixtures.py, write_quantized_interface): the input
/// an image whose preprocessing is the dequantization, the output
/// dequantized; run on the pixels LiteRT ran.
final class TFLiteQuantizedInterfaceTests: XCTestCase {
    let folder = tfliteFixtures.appendingPathComponent("quantized_interface")

    /// The file's scale and zero point of `kind`'s input or output
    /// (quantization.json, gray_quantization.json for "gray": LiteRT's reading).
    func quantization(_ kind: String, _ side: String) throws -> (scale: Float, zero: Float) {
        let data = try Data(contentsOf: folder.appendingPathComponent(kind == "gray" ? "gray_quantization.json" : "quantization.json"))
        let object = try JSONSerialization.jsonObject(with: data)
        let pair = try XCTUnwrap(kind == "gray" ? (object as? [String: [Double]])?[side] : (object as? [String: [String: [Double]]])?[kind]?[side])
        return (Float(pair[0]), Float(pair[1]))
    }

    /// UINT8 in and out, with tflite-support metadata (labels; mean 127.5,
    /// std 127.5, the float model's): alone, a classifier whose image gives
    /// the network scale * (pixel - zero point), the metadata's
    /// normalization not applied (LiteRT feeds the uint8 pixels as they are).
    /// LiteRT computes every activation in int8 and rounds its output to
    /// levels of 1/256; this model computes in float with the same int8
    /// weights. The bound: what LiteRT's own rounding of activations costs
    /// (the largest difference between its float model and the quantized
    /// file on the same pictures, 1.29e-2) plus one output level (3.9e-3):
    /// 1.68e-2. Measured: 9.5e-3 on the nine pictures, the top-1 class the
    /// same; 4.7e-3 from LiteRT's float model (the int8 weights' part).
    func testUInt8ClassifierTakesPixels() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("uint8.tflite").path)
        let (scale, zero) = try quantization("uint8", "input")
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image: \(model.inputs)") }
        XCTAssertEqual(image.scale, scale)
        for bias in [image.redBias, image.greenBias, image.blueBias] { XCTAssertEqual(bias, -scale * zero) }
        XCTAssertFalse(model.nodes.contains { $0.name.hasSuffix("_std") }, "the metadata's std layer was added")
        XCTAssertEqual(model.classifier?.labels, .strings(try LabelFile.read(path: folder.appendingPathComponent("labels.txt").path)))
        let notes = model.metadata.userDefined
        XCTAssertTrue(notes.first { $0.key == "tflite.weights" }?.value
            .hasSuffix("; 9 int8 and 1 uint8 activations computed in float (2 QUANTIZE/DEQUANTIZE dropped)") ?? false, "\(notes)")
        XCTAssertTrue(notes.first { $0.key == "tflite.input" }?.value.contains("the metadata's normalization (mean 127.5, std 127.5) is not applied") ?? false,
                      "\(notes)")
        XCTAssertEqual(notes.first { $0.key == "tflite.output" }?.value,
                       "'StatefulPartitionedCall_1:0' gives UINT8 (scale 0.00390625, zero point 0) levels in the file: dequantized, "
                       + "the real values 0.00390625 * (q - 0) computed in float (not rounded to the levels)")
        try compare(model, "uint8")
    }

    /// INT8 in and out, no metadata: the picture's pixel p is LiteRT's
    /// level p - 128, so the image gives scale * (p - 128 - zero point);
    /// the same bound as the uint8 file's (measured: 9.5e-3).
    func testInt8InputTakesPixelsLess128() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("int8.tflite").path)
        let (scale, zero) = try quantization("int8", "input")
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image: \(model.inputs)") }
        XCTAssertEqual(image.scale, scale)
        for bias in [image.redBias, image.greenBias, image.blueBias] { XCTAssertEqual(bias, -scale * (zero + 128)) }
        XCTAssertNil(model.classifier)
        try compare(model, "int8")
    }

    /// UINT8 one-channel [1, 12, 10, 1]: a grayscale image whose gray bias
    /// is -scale * zero point. This small model's LiteRT float and uint8
    /// files differ by 3.5e-2; ours is 3.8e-2 from the uint8 file (bound
    /// 3.9e-2) and 2.8e-3 from the float model; top-1 the same on 9 pictures.
    func testUInt8GrayscaleImage() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("gray_uint8.tflite").path)
        let (scale, zero) = try quantization("gray", "input")
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image: \(model.inputs)") }
        XCTAssertEqual(image.colorSpace, .grayscale)
        XCTAssertEqual(image.scale, scale)
        XCTAssertEqual(image.grayBias, -scale * zero)
        try compare(model, "gray", height: 12, width: 10, channels: 1, classes: 5)
    }

    /// Preprocessing options replace the dequantization (they give the real values), and the summary says so.
    func testOptionsReplaceTheDequantization() throws {
        var options = ConversionOptions()
        options.normalization = Normalization(mean: [0.5], std: [0.5])
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("uint8.tflite").path, options: options)
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image") }
        XCTAssertEqual(image.scale, 1 / (255 * 0.5), accuracy: 1e-7)
        XCTAssertEqual(image.redBias, -1)
        XCTAssertTrue(model.metadata.userDefined.first { $0.key == "tflite.input" }?.value
            .contains("the preprocessing given replaces their dequantization") ?? false)
    }

    /// plain_cnn with its float input made INT8 (scale 0.1, zero point 0):
    /// an image giving 0.1 * (pixel - 128).
    func testInt8InputVariant() throws {
        let model = try TFLiteConverter.convert(model: tfliteFixtures.appendingPathComponent("variants/quantized_input.tflite").path)
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image") }
        XCTAssertEqual(image.scale, 0.1)
        XCTAssertEqual(image.redBias, -0.1 * 128)
    }

    /// Quantized inputs that cannot be what LiteRT takes: refused by name.
    func testRefusals() throws {
        let cases = [
            ("zero_point.tflite", "the input 'serving_default_image:0' has the zero points [300]; one in -128...127 is expected for INT8"),
            ("scale_zero.tflite", "the input 'serving_default_image:0' has the quantization scale 0.0; a positive normal float is expected"),
            ("scale_nan.tflite", "the input 'serving_default_image:0' has the quantization scale nan; a positive normal float is expected"),
            ("zero_point_huge.tflite", "the input 'serving_default_image:0' has the zero points [9223372036854775807]; one in -128...127 is expected"),
            ("vector_input.tflite", "the input 'serving_default_image:0' is INT8 (scale 0.007843138, zero point -1) of shape [1, 768]: "
                + "a quantized input is converted as an image [1, H, W, 1 or 3]"),
        ]
        for (file, expected) in cases {
            XCTAssertThrowsError(try TFLiteConverter.convert(model: folder.appendingPathComponent("variants/\(file)").path)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(file): \(error)")
            }
        }
    }

    /// inspect's outline of a file it cannot convert states what the levels of a quantized input and output mean.
    func testOutlineStatesTheQuantization() throws {
        let outline = try TFLiteConverter.outline(model: folder.appendingPathComponent("variants/vector_input.tflite").path)
        let lines = outline.metadata.filter { $0.key == "tflite.quantization" }.map(\.value)
        XCTAssertEqual(lines, ["input 'serving_default_image:0': INT8 levels q stand for scale * (q - zero point), scales [0.007843138], zero points [-1]",
                               "output 'StatefulPartitionedCall_1:0': INT8 levels q stand for scale * (q - zero point), scales [0.00390625], "
                                   + "zero points [-128]"])
    }

    /// Runs `model` on the nine pictures (pixels.npy, whole values 0-255):
    /// the largest difference from `kind`'s dequantized LiteRT outputs must
    /// stay within the largest between LiteRT's float model and that file
    /// (float_output.npy) plus one output level, with the same top-1 class.
    func compare(_ model: Model, _ kind: String, height: Int = 16, width: Int = 16, channels: Int = 3, classes: Int = 10,
                 line: UInt = #line) throws {
        let path = checkDirectory.appendingPathComponent("tflite_quantized_interface_\(kind).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first?.name)
        let prefix = kind == "gray" ? "gray_" : ""
        let pixels = try NumpyFile.read(path: folder.appendingPathComponent("\(prefix)pixels.npy").path).values
        let references = try NumpyFile.read(path: folder.appendingPathComponent("\(kind)_output.npy").path).values
        let size = height * width * channels
        XCTAssertEqual(pixels.count, 9 * size, line: line)
        var difference: Float = 0, all: [Float] = []
        for index in 0..<9 {
            let image = Image(width: width, height: height, channels: channels, pixels: pixels[size * index..<size * (index + 1)].map { UInt8($0) })
            let prediction = try network.predict([input: .image(image)])
            let ours = try prediction.probabilities.map { $0.map(\.probability) }
                ?? XCTUnwrap(prediction.outputs[try XCTUnwrap(network.model.outputs.first?.name)]?.values)
            let expected = Array(references[classes * index..<classes * (index + 1)])
            for (a, b) in zip(ours, expected) { difference = max(difference, abs(a - b)) }
            all += ours
            XCTAssertEqual(ours.indices.max { ours[$0] < ours[$1] }, expected.indices.max { expected[$0] < expected[$1] },
                           "\(kind): picture \(index): the top-1 class differs", line: line)
        }
        let float = try NumpyFile.read(path: folder.appendingPathComponent("\(prefix)float_output.npy").path).values
        let rounding = zip(float, references).map { abs($0 - $1) }.max() ?? .infinity
        let bound = rounding + (try quantization(kind, "output").scale)
        XCTAssertLessThanOrEqual(difference, bound, "\(kind): LiteRT's float and quantized files differ by \(rounding)", line: line)
        // Activations in float lose less than LiteRT's int8 ones: closer to the float model than the quantized file is.
        let fromFloat = zip(all, float).map { abs($0 - $1) }.max() ?? .infinity
        XCTAssertLessThanOrEqual(fromFloat, rounding, "\(kind): the float model is \(fromFloat) away", line: line)
        print("\(kind): the largest difference from LiteRT is \(difference), the bound \(bound) (LiteRT's float and quantized files: "
              + "\(rounding)); from LiteRT's float model \(fromFloat)")
    }
}
