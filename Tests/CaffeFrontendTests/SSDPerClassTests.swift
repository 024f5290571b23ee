import CaffeFrontend
import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// Caffe SSD's per-class suppression and caps against OpenCV's
/// DetectionOutput (make_ssd_fixtures.py's per_class_cases: the fixture
/// net with confidence_threshold 0.02): with rows per class, every box
/// OpenCV keeps, under each label it keeps it, and no other; keep_top_k
/// caps the boxes kept as OpenCV does; nms_param top_k that would cap is
/// refused unless ignored.
final class SSDPerClassTests: XCTestCase {
    let folder = caffeFixtures.appendingPathComponent("ssd")
    var weights: String { folder.appendingPathComponent("weights.caffemodel").path }

    func deploy(_ name: String) -> String { folder.appendingPathComponent("deploy_\(name).prototxt").path }

    /// The pipeline converted with rows per class, written, read back and loaded.
    func network(_ name: String, rowsPerClass: Bool = true) throws -> (Network, Detector) {
        var options = ConversionOptions()
        options.detectorRowsPerClass = rowsPerClass
        let model = try CaffeConverter.convert(deploy: deploy(name), weights: weights, options: options)
        let path = try temporaryFolder().appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.model.detector, model.detector)
        return (try Network(file.model), try XCTUnwrap(file.model.detector))
    }

    func detections(_ network: Network, _ name: String) throws -> [Detection] {
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("\(name)_input.npy").path)
        return try XCTUnwrap(try network.predict(["data": .array(Tensor(shape: TensorShape(shape), values: values))]).detections)
    }

    /// Each detection is one of OpenCV's rows [label, score, xmin, ymin, xmax, ymax] (label and corners), each row at most once.
    func assertSame(_ detections: [Detection], _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let opencv = try NumpyFile.read(path: folder.appendingPathComponent("\(name)_opencv.npy").path).values
        XCTAssertEqual(detections.count, opencv.count / 6, file: file, line: line)
        var matched = Set<Int>()
        for detection in detections {
            let corners = [detection.x - detection.width / 2, detection.y - detection.height / 2,
                           detection.x + detection.width / 2, detection.y + detection.height / 2]
            let row = stride(from: 0, to: opencv.count, by: 6).first { row in
                !matched.contains(row) && Int(opencv[row]) + 1 == Int(detection.label) && (0..<4).allSatisfy { abs(opencv[row + 2 + $0] - corners[$0]) < 1e-4 }
            }
            guard let row else { XCTFail("OpenCV has no \(detection.label) box at \(corners)", file: file, line: line); continue }
            matched.insert(row)
            XCTAssertEqual(detection.confidence, opencv[row + 1], accuracy: 1e-4, file: file, line: line)
        }
    }

    func testRowsPerClassKeepEveryBoxUnderEachLabelAsOpenCV() throws {
        let (network, detector) = try network("per_class")
        XCTAssertTrue(detector.rowsPerClass)
        XCTAssertEqual(detector.maximumBoxes, 1000)
        let found = try detections(network, "per_class")
        try assertSame(found, "per_class")
        // The case this is for: some box kept under two labels.
        let boxes = found.map { [$0.x, $0.y, $0.width, $0.height] }
        XCTAssertLessThan(Set(boxes).count, boxes.count, "no box is kept under two labels")
        // Core ML's own suppression (one label a box) keeps fewer.
        let (topLabel, plain) = try self.network("per_class", rowsPerClass: false)
        XCTAssertFalse(plain.rowsPerClass)
        XCTAssertLessThan(try detections(topLabel, "per_class").count, found.count)
    }

    func testKeepTopKCapsTheBoxesKeptAsOpenCV() throws {
        let (network, detector) = try network("keep_top_k")
        XCTAssertEqual(detector.maximumBoxes, 4)
        try assertSame(try detections(network, "keep_top_k"), "keep_top_k")
        // Uncapped, the same input keeps more.
        let (uncapped, _) = try self.network("per_class")
        XCTAssertGreaterThan(try detections(uncapped, "keep_top_k").count, 4)
    }

    func testATopKThatCapsIsRefusedUnlessIgnored() throws {
        let deploy = folder.appendingPathComponent("deploy.prototxt").path
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: deploy, weights: weights)) { error in
            XCTAssertTrue("\(error)".contains("layer 'detection_out' (DetectionOutput): nms_param top_k 100 takes each class's 100 most confident "
                                              + "of 648 boxes into its suppression"), "\(error)")
            XCTAssertTrue("\(error)".contains("give ignoresCandidateCap to convert without that cap"), "\(error)")
        }
        var options = ConversionOptions()
        options.ignoresCandidateCap = true
        XCTAssertEqual(try CaffeConverter.convert(deploy: deploy, weights: weights, options: options).detector?.maximumBoxes, 100)
        // keep_top_k 0 keeps nothing: refused.
        let text = try String(contentsOfFile: self.deploy("keep_top_k"), encoding: .utf8)
        let path = try temporaryFolder().appendingPathComponent("deploy.prototxt").path
        try text.replacingOccurrences(of: "keep_top_k: 4", with: "keep_top_k: 0").write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: path, weights: weights)) { error in
            XCTAssertTrue("\(error)".contains("keep_top_k 0 keeps no box"), "\(error)")
        }
        // Rows per class need a detector.
        options.detectorRowsPerClass = true
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: caffeFixtures.appendingPathComponent("resnet_bn/deploy.prototxt").path,
                                                        weights: nil, options: options)) { error in
            XCTAssertTrue("\(error)".contains("applies to a DetectionOutput's top_k") || "\(error)".contains("applies to a detector"), "\(error)")
        }
    }
}
