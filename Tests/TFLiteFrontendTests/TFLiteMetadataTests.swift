import CoreMLBackend
import Conversion
import Foundation
import Images
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

/// A model with TFLite metadata written by tflite-support 0.4.4's
/// image_classifier writer (make_tflite_fixtures.py, write_metadata): the
/// labels file zipped onto the model and the input's per-channel
/// normalization make, without options, a classifier whose image input
/// gives the network (pixel - mean) / std; its probabilities match
/// LiteRT's on the normalized pixels.
final class TFLiteMetadataTests: XCTestCase {
    let folder = tfliteFixtures.appendingPathComponent("metadata_classifier")
    var source: String { folder.appendingPathComponent("model.tflite").path }

    func testClassifierWithLabelsAndNormalizationFromMetadata() throws {
        let model = try TFLiteConverter.convert(model: source)
        let labels = try LabelFile.read(path: folder.appendingPathComponent("labels.txt").path)
        XCTAssertEqual(model.classifier?.labels, .strings(labels))
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image: \(model.inputs)") }
        // mean 127.5, 118, 104; std 127.5, 64, 58: stds that differ are a scale layer after the
        // input (Core ML's image scale is one for all channels), the image gives pixel / 255 - mean / 255.
        XCTAssertEqual(image.scale, 1 / 255, accuracy: 1e-9)
        XCTAssertEqual(image.redBias, -0.5, accuracy: 1e-6)
        XCTAssertEqual(image.greenBias, -118 / 255, accuracy: 1e-6)
        XCTAssertEqual(image.blueBias, -104 / 255, accuracy: 1e-6)
        guard case .scale(let scale) = model.nodes.first?.operation else { return XCTFail("no scale layer first: \(model.nodes.first as Any)") }
        for (ours, std) in zip(scale.scale.values, [Float(127.5), 64, 58]) { XCTAssertEqual(ours, 255 / std, accuracy: 1e-5) }
        XCTAssertEqual(model.metadata.shortDescription.hasPrefix("ImageClassifier: "), true, model.metadata.shortDescription)
        XCTAssertEqual(model.inputs.first?.description, "Input image to be classified.")
        XCTAssertEqual(model.metadata.userDefined.first { $0.key == "tflite.metadata.output 0" }?.value, "'probability'; labels labels.txt")

        let path = checkDirectory.appendingPathComponent("tflite_metadata_classifier.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        let (shape, pixels) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
        XCTAssertEqual(shape, [1, 16, 16, 3])
        let prediction = try network.predict([input.name: .image(Image(width: 16, height: 16, channels: 3, pixels: pixels.map { UInt8($0) }))])
        let reference = try NumpyFile.read(path: folder.appendingPathComponent("output.npy").path).values
        let ours = try XCTUnwrap(prediction.probabilities).map(\.probability)
        XCTAssertEqual(try XCTUnwrap(prediction.probabilities).map(\.label), labels)
        XCTAssertEqual(ours.count, reference.count)
        if let worst = worstMismatch(ours, reference) {
            XCTFail("value \(worst.index) is \(worst.ours), LiteRT gives \(worst.reference)")
        }
        let top = try XCTUnwrap(reference.indices.max { reference[$0] < reference[$1] })
        XCTAssertEqual(prediction.classLabel, labels[top])
    }

    /// Options override the metadata: given labels and preprocessing are
    /// the ones the model gets.
    func testOptionsOverrideTheMetadata() throws {
        var options = ConversionOptions()
        options.classLabels = .strings((0..<10).map { "class \($0)" })
        options.imageInputNames = ["serving_default_image_0"]
        options.imageScale = 2
        let model = try TFLiteConverter.convert(model: source, options: options)
        XCTAssertEqual(model.classifier?.labels, options.classLabels)
        guard case .image(let image) = model.inputs.first?.kind else { return XCTFail("the input is not an image") }
        XCTAssertEqual(image.scale, 2)
        XCTAssertEqual(image.redBias, 0)
        XCTAssertFalse(model.nodes.contains { $0.name.hasSuffix("_std") }, "the metadata's std layer was added")
    }

    /// inspect's outline of the file lists what the metadata says.
    func testOutlineShowsTheMetadata() throws {
        let outline = try TFLiteConverter.outline(model: source)
        let lines = outline.metadata.map { "\($0.key): \($0.value)" }
        XCTAssertTrue(lines.contains("tflite.metadata.input 0: 'image'; image, RGB; normalized (value - mean) / std, mean 127.5,118,104, std 127.5,64,58"),
                      "\(lines)")
        XCTAssertTrue(lines.contains("tflite.metadata.output 0: 'probability'; labels labels.txt"), "\(lines)")
        XCTAssertTrue(lines.contains("tflite.metadata.file: labels.txt (78 bytes)"), "\(lines)")
    }

    /// metadata_classifier's model with its labels file deflated (Python's
    /// zipfile, ZIP_DEFLATED, make_tflite_fixtures.py's write_deflated):
    /// inflated, the same labels; inspect's outline says it was deflated.
    func testDeflatedLabelsFile() throws {
        let path = tfliteFixtures.appendingPathComponent("deflated_labels/model.tflite").path
        let model = try TFLiteConverter.convert(model: path)
        XCTAssertEqual(model.classifier?.labels, .strings(try LabelFile.read(path: folder.appendingPathComponent("labels.txt").path)))
        XCTAssertEqual(model.nodes, try TFLiteConverter.convert(model: source).nodes)
        let lines = try TFLiteConverter.outline(model: path).metadata.map { "\($0.key): \($0.value)" }
        XCTAssertTrue(lines.contains("tflite.metadata.file: labels.txt (78 bytes, deflated to 65)"), "\(lines)")
    }

    /// A file compressed other than by deflate is refused by name; stored
    /// bytes said to be deflated, a wrong CRC-32, a zip directory or a file
    /// that lies outside the model: each an error with the byte.
    func testMalformedAssociatedFilesFailWithTheByte() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        func last(_ signature: UInt32) throws -> Int {
            let pattern = withUnsafeBytes(of: signature.littleEndian) { Array($0) }
            return try XCTUnwrap((0...(bytes.count - 4)).last { Array(bytes[$0..<$0 + 4]) == pattern })
        }
        let central = try last(0x0201_4b50), end = try last(0x0605_4b50)
        let cases: [(at: Int, value: [UInt8], expected: String)] = [
            (central + 10, [12, 0], "byte \(central): associated file 'labels.txt' is compressed with method 12; stored (0) and deflated (8) files are read"),
            (central + 10, [8, 0], ": associated file 'labels.txt': the deflate stream is malformed (zlib: invalid code lengths set)"),
            (central + 16, [0, 0, 0, 0], ": associated file 'labels.txt' has the CRC-32 0xe6d49a93, and its directory entry states 0x0"),
            (end + 12, [0, 0xFF, 0xFF, 0x7F], "byte \(end): the associated files' zip directory (2147483392 bytes at"),
            (central + 20, [0xFF, 0xFF, 0, 0], "byte \(central): associated file 'labels.txt' is stored, yet its sizes differ (65535 bytes stored, 78 unpacked)"),
            (central + 42, [0xF0, 0xFF, 0xFF, 0x0F], "the local header of associated file 'labels.txt' (30 bytes) runs past the end of the file"),
        ]
        for (index, (at, value, expected)) in cases.enumerated() {
            var changed = bytes
            changed.replaceSubrange(at..<at + value.count, with: value)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tflite_zip_\(getpid())_\(index).tflite").path
            try Data(changed).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            XCTAssertThrowsError(try TFLiteConverter.convert(model: path)) { error in
                XCTAssertTrue("\(error)".contains(expected), "case \(index): \(error)")
            }
        }
    }
}
