import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import ONNXFrontend
import Runtime
import TestSupport
import XCTest

/// A segmentation network PyTorch exported (make_onnx_fixtures.py
/// `segmenter`: 5 class scores a pixel of a [1, 3, 24, 32] image) converted
/// with `classMap`: each pixel's class is the argmax of onnxruntime's
/// scores, and the labels reach Xcode's preview metadata (the scores
/// themselves: `ONNXParityTests.testSegmentationScores`).
final class ClassMapTests: XCTestCase {
    static let folder = onnxFixtures.appendingPathComponent("segmenter_opset13")
    static let labels = ["background", "road", "car", "person", "sky"]

    func testEachPixelsClassIsTheArgmaxOfTheScores() throws {
        var options = ConversionOptions()
        options.classMap = true
        options.classLabels = .strings(Self.labels)
        let converted = try ONNXConverter.convert(model: Self.folder.appendingPathComponent("model.onnx").path, options: options)
        XCTAssertEqual(converted.outputs.map(\.name), ["classMap"])
        XCTAssertNil(converted.classifier, "the labels name the classes; the model is no classifier")
        let metadata = Dictionary(uniqueKeysWithValues: converted.metadata.userDefined.map { ($0.key, $0.value) })
        XCTAssertEqual(metadata["com.apple.coreml.model.preview.type"], "imageSegmenter")
        let parameters = try XCTUnwrap(metadata["com.apple.coreml.model.preview.params"]?.data(using: .utf8))
        XCTAssertEqual(try JSONSerialization.jsonObject(with: parameters) as? [String: [String]], ["labels": Self.labels])

        let path = checkDirectory.appendingPathComponent("onnx_segmenter_class_map.mlmodel").path
        try CoreMLWriter.write(converted, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        let value = try NumpyFile.tensor(path: Self.folder.appendingPathComponent("input.npy").path, fitting: TensorShape([1, 3, 24, 32]),
                                         input: input.name)
        let classMap = try XCTUnwrap(network.predict([input.name: .array(value)]).outputs["classMap"])
        // onnxruntime's scores [1, 5, 24, 32]: the class of pixel p is the c of the largest scores[c * 768 + p].
        let scores = try NumpyFile.read(path: Self.folder.appendingPathComponent("output.npy").path).values
        let pixels = 24 * 32
        let expected = (0..<pixels).map { p in Float((0..<5).max { scores[$0 * pixels + p] < scores[$1 * pixels + p] }!) }
        XCTAssertEqual(classMap.values.count, pixels)
        XCTAssertEqual(classMap.values, expected)
        XCTAssertGreaterThan(Set(expected).count, 2, "a map of one class would prove little")
    }

    func testLabelsThatDoNotCountTheClassesAreRefused() throws {
        var options = ConversionOptions()
        options.classMap = true
        options.classLabels = .strings(Array(Self.labels.dropLast()))
        options.classLabelsSource = "labels.txt"
        XCTAssertThrowsError(try ONNXConverter.convert(model: Self.folder.appendingPathComponent("model.onnx").path, options: options)) { error in
            XCTAssertEqual("\(error)", "labels.txt: 4 class labels, but output 'output' scores 5 classes a pixel")
        }
    }

    /// A classifier's [10] scores are no per-pixel scores.
    func testAClassifierHasNoClassMap() throws {
        var options = ConversionOptions()
        options.classMap = true
        let path = onnxFixtures.appendingPathComponent("resnet_opset13/model.onnx").path
        XCTAssertThrowsError(try ONNXConverter.convert(model: path, options: options)) { error in
            XCTAssertTrue("\(error)".hasSuffix("classMap takes per-pixel class scores [C, H, W] with C at least 2 and more than one pixel; output 'output' is 10x1x1"), "\(error)")
        }
    }
}
