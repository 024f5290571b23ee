import Foundation
import Runtime
import TestSupport
import XCTest

/// The runtime's non-maximum suppression against a numpy implementation of
/// NonMaximumSuppression.proto (scripts/fixtures/make_darknet_fixtures.py,
/// whose class-agnostic result it checks against OpenCV's
/// cv2.dnn.NMSBoxes), on the decoded rows of two YOLO fixtures: the same
/// rows kept, in the same order.
final class NonMaximumSuppressionTests: XCTestCase {
    func testKeptRowsMatchNumpy() throws {
        for name in ["tiny_yolo", "yolov2_reorg"] {
            let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet/\(name)")
            let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as? [String: Any])
            let settings = try XCTUnwrap((meta["decoding"] as? [String: Any])?["nms"] as? [String: Any])
            let confidence = try NumpyFile.read(path: folder.appendingPathComponent("decoded_confidence.npy").path)
            let coordinates = try NumpyFile.read(path: folder.appendingPathComponent("decoded_coordinates.npy").path).values
            for (file, perClass) in [("nms_agnostic", false), ("nms_per_class", true)] {
                let nms = NonMaximumSuppression(iouThreshold: try XCTUnwrap(settings["iouThreshold"] as? Double),
                                                confidenceThreshold: try XCTUnwrap(settings["confidenceThreshold"] as? Double), perClass: perClass)
                let kept = nms.keptRows(confidence: confidence.values, classes: confidence.shape[1], coordinates: coordinates)
                let reference = try NumpyFile.read(path: folder.appendingPathComponent("\(file).npy").path).values.map { Int($0) }
                XCTAssertFalse(reference.isEmpty, "\(name)/\(file)")
                XCTAssertEqual(kept, reference, "\(name)/\(file)")
            }
        }
    }

    /// Hand-made cases: overlap at the threshold is kept, above it
    /// suppressed; per class only within a label; ties by row.
    func testTheRulesOnSmallCases() {
        // Two unit boxes side by side overlapping by half their width: IOU 1/3.
        let boxes: [Float] = [0.5, 0.5, 1, 1, 1.0, 0.5, 1, 1, 5, 5, 1, 1]
        let scores: [Float] = [0.9, 0.0, 0.8, 0.0, 0.8, 0.0]
        XCTAssertEqual(NonMaximumSuppression(iouThreshold: 1.0 / 3, confidenceThreshold: 0, perClass: false)
            .keptRows(confidence: scores, classes: 2, coordinates: boxes), [0, 1, 2], "an IOU at the threshold is kept; a tie goes to the earlier row")
        XCTAssertEqual(NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: false)
            .keptRows(confidence: scores, classes: 2, coordinates: boxes), [0, 2])
        XCTAssertEqual(NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0.85, perClass: false)
            .keptRows(confidence: scores, classes: 2, coordinates: boxes), [0])
        let labelled: [Float] = [0.9, 0.0, 0.0, 0.8, 0.1, 0.0]  // rows 0 and 1 are different classes
        XCTAssertEqual(NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: true)
            .keptRows(confidence: labelled, classes: 2, coordinates: boxes), [0, 1, 2])
        XCTAssertEqual(NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: false)
            .keptRows(confidence: labelled, classes: 2, coordinates: boxes), [0, 2])
    }
}
