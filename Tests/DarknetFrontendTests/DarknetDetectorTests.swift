import Conversion
import CoreMLBackend
import DarknetFrontend
import Foundation
import ImageFiles
import Images
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// The converted YOLOv2 detector, a pipeline written to a file, read back
/// and run, against OpenCV's whole Darknet network (its region layer with
/// its own per-class NMS at 0.4, threshold 0.2) and numpy's decoding
/// followed by Core ML's NMS (make_darknet_fixtures.py, case detector:
/// three pictures of 5, 5 and 10 boxes of two or three labels).
final class DarknetDetectorTests: XCTestCase {
    let folder = darknetFixtures.appendingPathComponent("detector")

    func network(iou: Double = 0.4, confidence: Double = 0.2) throws -> (Network, Model) {
        var options = ConversionOptions()
        options.detectionThresholds = DetectionThresholds(iou: iou, confidence: confidence)
        let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                 weights: folder.appendingPathComponent("model.weights").path, options: options)
        let path = checkDirectory.appendingPathComponent("darknet_detector.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        if iou == 0.4, confidence == 0.2 {
            // scripts/check_mlmodels.py decodes it with coremltools and compares these fields.
            let expectation = path.replacingOccurrences(of: ".mlmodel", with: ".expect.json")
            try? FileManager.default.removeItem(atPath: expectation)
            try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/darknet_detector.expect.json").path,
                                             toPath: expectation)
        }
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 3)
        return (try Network(file.model), model)
    }

    func picture(_ index: Int) throws -> Image {
        try ImageFile.read(path: folder.appendingPathComponent("detect_\(index).png").path)
    }

    func testKeptBoxesMatchNumpyAndOpenCV() throws {
        let (network, _) = try network()
        for index in 0..<3 {
            let prediction = try network.predict(["image": .image(try picture(index))])
            for output in ["confidence", "coordinates"] {
                let reference = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_\(output).npy").path)
                let ours = try XCTUnwrap(prediction.outputs[output])
                XCTAssertEqual(ours.shape.dimensions, reference.shape, "picture \(index): \(output)")
                if let worst = worstMismatch(ours.values, reference.values) {
                    XCTFail("picture \(index): \(output) value \(worst.index) is \(worst.ours), numpy \(worst.reference)")
                }
            }
            // OpenCV's detections, [x, y, w, h, label, score] rows: the same boxes, labels and scores.
            let opencv = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_opencv.npy").path).values
            let detections = try XCTUnwrap(prediction.detections)
            XCTAssertGreaterThanOrEqual(detections.count, 5)
            assertSameDetections(detections, opencv: opencv, "picture \(index)")
            XCTAssertEqual(detections.map(\.confidence), detections.map(\.confidence).sorted(by: >), "most confident first")
            XCTAssertGreaterThan(Set(detections.map(\.label)).count, 1)
        }
    }

    func testThresholdInputsOverrideTheStoredOnes() throws {
        let (network, _) = try network()
        let image = InputValue.image(try picture(0))
        let stored = try XCTUnwrap(network.predict(["image": image]).detections)
        let strict = try XCTUnwrap(network.predict(["image": image, "confidenceThreshold": .number(Double(stored[2].confidence))]).detections)
        XCTAssertEqual(strict.map(\.row), Array(stored.prefix(3)).map(\.row))
        // IoU 1 suppresses nothing: every box above the threshold comes out.
        let all = try XCTUnwrap(network.predict(["image": image, "iouThreshold": .number(1)]).detections)
        XCTAssertGreaterThanOrEqual(all.count, stored.count)
        XCTAssertThrowsError(try network.predict(["image": image, "iouThreshold": .number(1.5)])) { error in
            XCTAssertTrue("\(error)".contains("input 'iouThreshold' takes a number from 0 to 1, not 1.5"), "\(error)")
        }
        XCTAssertThrowsError(try network.predict(["image": image, "confidenceThreshold": .number(-.infinity)])) { error in
            XCTAssertTrue("\(error)".contains("input 'confidenceThreshold' takes a number of 0 or more, not -inf"), "\(error)")
        }
        XCTAssertThrowsError(try network.predict(["image": image, "confidenceThreshold": image])) { error in
            XCTAssertTrue("\(error)".contains("input 'confidenceThreshold' takes a number of 0 or more, not an array or image"), "\(error)")
        }
        XCTAssertThrowsError(try network.predict(["image": image, "threshold": .number(0.5)])) { error in
            XCTAssertTrue("\(error)".contains("the model has no input 'threshold'"), "\(error)")
        }
    }

    func testThePipelineReadsBackAsWritten() throws {
        let (network, model) = try network(iou: 0.3, confidence: 0.1)
        XCTAssertEqual(network.model.detector, model.detector)
        XCTAssertEqual(network.model.detector?.labels, .integers(Array(0..<20)))
        XCTAssertEqual(network.model.outputs.map(\.name), ["raw_confidence", "raw_coordinates"])
        XCTAssertEqual(network.model.outputs.map(\.shape), [[1, 1280, 20], [1, 1280, 4]])
    }

    func testLabelsAndThresholdsAreChecked() throws {
        let config = folder.appendingPathComponent("model.cfg").path, weights = folder.appendingPathComponent("model.weights").path
        var options = ConversionOptions()
        options.classLabels = .strings(["cat", "dog"])
        options.classLabelsSource = "voc.txt"
        XCTAssertThrowsError(try DarknetConverter.convert(config: config, weights: weights, options: options)) { error in
            XCTAssertTrue("\(error)".contains("voc.txt: 2 class labels, and the [region] layer of \(config) detects 20 classes: give 20"), "\(error)")
        }
        var strict = ConversionOptions()
        strict.detectionThresholds = DetectionThresholds(iou: 2)
        XCTAssertThrowsError(try DarknetConverter.convert(config: config, weights: weights, options: strict)) { error in
            XCTAssertTrue("\(error)".contains("the detector's IoU threshold must be from 0 to 1, not 2.0"), "\(error)")
        }
        strict.detectionThresholds = DetectionThresholds(confidence: 0.5)
        XCTAssertThrowsError(try DarknetConverter.convert(config: config, weights: weights, options: strict, region: .grid)) { error in
            XCTAssertTrue("\(error)".contains("thresholds apply to a detector, and this network is converted to its raw grid, not a detector"), "\(error)")
        }
        // Anchors of 2^31 grid cells (or NaN) are no anchors.
        for value in ["2147483648", "nan", "0"] {
            let text = try String(contentsOfFile: config, encoding: .utf8)
            let path = try temporaryFolder().appendingPathComponent("model.cfg").path
            try text.replacingOccurrences(of: "anchors = 1.08,", with: "anchors = \(value),").write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try DarknetConverter.convert(config: path, weights: weights)) { error in
                XCTAssertTrue("\(error)".contains("model.cfg:59: [region] needs classes > 0 and num pairs of anchors above 0 and at most 1073741824"), "\(error)")
            }
        }
        options.classLabels = .strings((0..<20).map { "class \($0)" })
        let model = try DarknetConverter.convert(config: config, weights: weights, options: options)
        XCTAssertNil(model.classifier)
        XCTAssertEqual(model.detector?.labels.descriptions.last, "class 19")
    }
}

/// `detections` are OpenCV's [x, y, w, h, label, score] rows: as many, each
/// with a row of its label at its centre (within 1e-4), its confidence
/// within 1e-4 and its size within 1e-4 * max(1, OpenCV's).
func assertSameDetections(_ detections: [Detection], opencv: [Float], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(detections.count, opencv.count / 6, what, file: file, line: line)
    for detection in detections {
        let match = stride(from: 0, to: opencv.count, by: 6).first { row in
            Int(opencv[row + 4]) == Int(detection.label) && abs(opencv[row] - detection.x) < 1e-4 && abs(opencv[row + 1] - detection.y) < 1e-4
        }
        guard let row = match else {
            XCTFail("\(what): OpenCV has no box of label \(detection.label) at \(detection.x), \(detection.y)", file: file, line: line)
            continue
        }
        XCTAssertEqual(detection.confidence, opencv[row + 5], accuracy: 1e-4, what, file: file, line: line)
        XCTAssertEqual(detection.width, opencv[row + 2], accuracy: 1e-4 * max(1, opencv[row + 2]), what, file: file, line: line)
        XCTAssertEqual(detection.height, opencv[row + 3], accuracy: 1e-4 * max(1, opencv[row + 3]), what, file: file, line: line)
    }
}
