import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TensorFlowFrontend
import TestSupport
import XCTest

/// A YOLOv2-shaped frozen graph whose passthrough is SpaceToDepth
/// (Tests/Fixtures/tensorflow/yolo_passthrough, make_tf_yolo_fixture.py),
/// converted with --yolo-anchors into a detector, written, read back and
/// run: its decoded rows against numpy's decoding of TensorFlow's own
/// output (which holds SpaceToDepth's channel order), its kept rows against
/// numpy's Core ML NMS.
final class YOLOGraphTests: XCTestCase {
    let folder = tensorflowFixtures.appendingPathComponent("yolo_passthrough")

    func convert(anchors: [Float] = [1.5, 2.0, 4.0, 3.0], labels: ClassLabels? = nil) throws -> Model {
        var options = ConversionOptions()
        options.yoloAnchors = anchors
        options.classLabels = labels
        return try TensorFlowConverter.convert(graph: folder.appendingPathComponent("graph.pb").path, options: options)
    }

    func testDetectorRowsAndKeptBoxesMatchNumpyOnTensorFlowsOutput() throws {
        let model = try convert()
        XCTAssertEqual(model.detector?.labels, .integers([0, 1, 2]))
        XCTAssertEqual([model.detector?.iouThreshold, model.detector?.confidenceThreshold], [0.45, 0.25])
        let path = checkDirectory.appendingPathComponent("tensorflow_yolo_passthrough.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(try CoreMLReader.read(from: path).model)
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
        let prediction = try network.predict([model.inputs[0].name: .array(Tensor(shape: TensorShape(shape), values: values))])
        for (output, file) in [("raw_confidence", "decoded_confidence"), ("raw_coordinates", "decoded_coordinates"),
                               ("confidence", "kept_confidence"), ("coordinates", "kept_coordinates")] {
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("\(file).npy").path)
            let ours = try XCTUnwrap(prediction.outputs[output], output)
            XCTAssertEqual(ours.values.count, reference.values.count, output)
            if let worst = worstMismatch(ours.values, reference.values) {
                XCTFail("\(output): value \(worst.index) is \(worst.ours), numpy \(worst.reference)")
            }
        }
        XCTAssertGreaterThanOrEqual(prediction.detections?.count ?? 0, 5)
    }

    func testAnchorsAndLabelsThatDoNotFitTheGridAreRefused() throws {
        XCTAssertThrowsError(try convert(anchors: [1, 2, 3, 4, 5, 6])) { error in
            XCTAssertTrue("\(error)".contains("the grid's 16 channels are not 3 anchors x (5 + classes)"), "\(error)")
        }
        XCTAssertThrowsError(try convert(labels: .strings(["cat", "dog"]))) { error in
            XCTAssertTrue("\(error)".contains("the grid's 16 channels are not 2 anchors x (5 + classes)"), "\(error)")
        }
        XCTAssertEqual(try convert(labels: .strings(["cat", "dog", "bird"])).detector?.labels, .strings(["cat", "dog", "bird"]))
        var options = ConversionOptions()
        options.detectionThresholds = DetectionThresholds(iou: 0.5)
        XCTAssertThrowsError(try TensorFlowConverter.convert(graph: folder.appendingPathComponent("graph.pb").path, options: options)) { error in
            XCTAssertTrue("\(error)".contains("thresholds apply to a detector: give yoloAnchors for a YOLOv2 output"), "\(error)")
        }
    }
}
