import Foundation
import TestSupport
import XCTest

/// `coreml-convert tflite` and `coreml-inspect` on the quantized-interface
/// fixtures (make_tflite_fixtures.py, write_quantized_interface): what the
/// summary says of a UINT8 input and output is what was done.
final class TFLiteCommandTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/tflite/quantized_interface").path

    func testUInt8ModelSummarySaysWhatWasDequantized() throws {
        let output = try temporaryFolder().path + "/u8.mlmodel"
        let converted = try ProgramRunner.run("coreml-convert", ["tflite", folder + "/uint8.tflite", "-o", output])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let inspected = try ProgramRunner.run("coreml-inspect", [output])
        let text = inspected.standardOutput.replacingOccurrences(of: "\n              ", with: " ")
        for line in [
            "tflite.input = 'serving_default_image_0' takes UINT8 (scale 0.007843138, zero point 127) levels: an image whose preprocessing "
                + "is their dequantization, 0.007843138 * (pixel - 127) (scale 0.007843138, bias -0.9960785); the metadata's normalization "
                + "(mean 127.5, std 127.5) is not applied",
            "tflite.output = 'StatefulPartitionedCall_1:0' gives UINT8 (scale 0.00390625, zero point 0) levels in the file: dequantized",
            "  serving_default_image_0: image<RGB,16x16>\n    preprocessing: scale 0.007843138, bias R -0.9960785 G -0.9960785 B -0.9960785",
            "  classLabelProbs: dictionary<string,double>",
        ] {
            XCTAssertTrue(text.contains(line), "'\(line)' not in:\n\(inspected.standardOutput)")
        }
    }

    func testQuantizedVectorInputIsOneError() throws {
        try ProgramRunner.assertOneError("coreml-convert", ["tflite", folder + "/variants/vector_input.tflite", "-o", try temporaryFolder().path + "/v.mlmodel"],
                                         "the input 'serving_default_image:0' is INT8 (scale 0.007843138, zero point -1) of shape [1, 768]")
    }
}
