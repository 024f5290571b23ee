import CoreMLBackend
import Foundation
import ModelFormat
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
                let kept = try nms.kept(confidence: confidence.values, classes: confidence.shape[1], coordinates: coordinates).map(\.row)
                let reference = try NumpyFile.read(path: folder.appendingPathComponent("\(file).npy").path).values.map { Int($0) }
                XCTAssertFalse(reference.isEmpty, "\(name)/\(file)")
                XCTAssertEqual(kept, reference, "\(name)/\(file)")
            }
        }
    }

    /// Hand-made cases: overlap at the threshold is kept, above it
    /// suppressed; per class only within a label; ties by row.
    func testTheRulesOnSmallCases() throws {
        // Two unit boxes side by side overlapping by half their width: IOU 1/3.
        let boxes: [Float] = [0.5, 0.5, 1, 1, 1.0, 0.5, 1, 1, 5, 5, 1, 1]
        let scores: [Float] = [0.9, 0.0, 0.8, 0.0, 0.8, 0.0]
        XCTAssertEqual(try NonMaximumSuppression(iouThreshold: 1.0 / 3, confidenceThreshold: 0, perClass: false)
            .kept(confidence: scores, classes: 2, coordinates: boxes).map(\.row), [0, 1, 2], "an IOU at the threshold is kept; a tie goes to the earlier row")
        XCTAssertEqual(try NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: false)
            .kept(confidence: scores, classes: 2, coordinates: boxes).map(\.row), [0, 2])
        XCTAssertEqual(try NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0.85, perClass: false)
            .kept(confidence: scores, classes: 2, coordinates: boxes).map(\.row), [0])
        let labelled: [Float] = [0.9, 0.0, 0.0, 0.8, 0.1, 0.0]  // rows 0 and 1 are different classes
        XCTAssertEqual(try NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: true)
            .kept(confidence: labelled, classes: 2, coordinates: boxes).map(\.row), [0, 1, 2])
        XCTAssertEqual(try NonMaximumSuppression(iouThreshold: 0.3, confidenceThreshold: 0, perClass: false)
            .kept(confidence: labelled, classes: 2, coordinates: boxes).map(\.row), [0, 2])
    }

    /// A detector pipeline coremltools built (make_coreml_fixtures.py:
    /// builder_detector, its threshold inputs named by the suppression and
    /// described by the pipeline only, as coremltools' examples write them),
    /// read and run: the kept rows are numpy's.
    func testAPipelineCoremltoolsBuiltRuns() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml")
        let file = try CoreMLReader.read(from: folder.appendingPathComponent("builder_detector.mlmodel").path)
        let detector = try XCTUnwrap(file.model.detector)
        XCTAssertEqual(detector.labels, .strings(["cat", "dog", "bird"]))
        XCTAssertEqual([detector.iouThreshold, detector.confidenceThreshold], [0.5, 0.2])
        XCTAssertEqual(file.featureTypes["confidence"], .multiArrayRange(dataType: "double", lower: [0, 3], upper: [nil, 3]))
        let network = try Network(file.model)
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("builder_detector_input.npy").path)
        let prediction = try network.predict(["features": .array(Tensor(shape: TensorShape(shape), values: values))])
        for output in ["confidence", "coordinates"] {
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("builder_detector_\(output).npy").path)
            let ours = try XCTUnwrap(prediction.outputs[output])
            XCTAssertEqual(ours.shape.dimensions, reference.shape, output)
            if let worst = worstMismatch(ours.values, reference.values) {
                XCTFail("\(output): value \(worst.index) is \(worst.ours), numpy \(worst.reference)")
            }
        }
    }

    /// A detector with more boxes above its threshold than the suppression
    /// takes (it compares them pairwise) is refused with what to do, not run
    /// for hours; a threshold input that leaves fewer runs.
    func testTooManyCandidatesAreRefused() throws {
        let rows = NonMaximumSuppression.candidateLimit + 1
        let model = Model(inputs: [Input(name: "scores", kind: .array(shape: [1, rows, 1])), Input(name: "boxes", kind: .array(shape: [1, rows, 4]))],
                          outputs: [Output(name: "raw_confidence"), Output(name: "raw_coordinates")],
                          nodes: [Node(name: "scores_copy", operation: .activation(.linear(alpha: 1, beta: 0)), inputs: ["scores"], outputs: ["raw_confidence"]),
                                  Node(name: "boxes_copy", operation: .activation(.linear(alpha: 1, beta: 0)), inputs: ["boxes"], outputs: ["raw_coordinates"])],
                          detector: Detector(labels: .strings(["thing"]), iouThreshold: 0.5, confidenceThreshold: 0.1, perClass: true))
        // Written and read back: the rows' count comes from shape inference when the outputs state none.
        let path = checkDirectory.appendingPathComponent("nms_many_candidates.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(try CoreMLReader.read(from: path).model)
        var scores = [Float](repeating: 0.5, count: rows)
        scores[0] = 0.9
        var inputs: [String: InputValue] = [
            "scores": .array(Tensor(shape: TensorShape([1, rows, 1]), values: scores)),
            "boxes": .array(Tensor(shape: TensorShape([1, rows, 4]), values: (0..<rows * 4).map { Float($0 % 4 < 2 ? $0 / 4 : 1) })),
        ]
        XCTAssertThrowsError(try network.predict(inputs)) { error in
            XCTAssertTrue("\(error)".contains("\(rows) boxes are above the confidence threshold 0.1; the suppression takes at most \(NonMaximumSuppression.candidateLimit)"), "\(error)")
        }
        inputs["confidenceThreshold"] = .number(0.8)
        XCTAssertEqual(try network.predict(inputs).detections?.map(\.row), [0])
    }
}
