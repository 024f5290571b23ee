import Conversion
import CoreMLBackend
import Foundation
import Images
import ModelFormat
import ONNXFrontend
import Runtime
import TestSupport
import XCTest

/// The ONNX detectors (make_onnx_yolo_fixtures.py) with rows per class
/// (`detectorRowsPerClass`, written as rank-N layers on a tensor network):
/// written, read back and run on the fixture's picture, the boxes kept
/// against OpenCV's batched suppression of every (box, class) passing the
/// threshold (make_rows_per_class_fixtures.py), a box kept under several
/// labels included.
final class DetectorRowsPerClassTests: XCTestCase {
    func testRowsPerClassKeepWhatOpenCVsBatchedSuppressionKeeps() throws {
        for layout in DetectorOutputLayout.allCases {
            let folder = onnxFixtures.appendingPathComponent("\(layout.rawValue)_detector")
            var options = ConversionOptions()
            options.detectorOutput = layout
            options.detectorRowsPerClass = true
            options.classLabels = .integers([0, 1, 2])  // class numbers, as the reference lists them (not the yolov8 file's names)
            let model = try ONNXConverter.convert(model: folder.appendingPathComponent("model.onnx").path, options: options)
            let path = try temporaryFolder().appendingPathComponent("\(layout.rawValue).mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let file = try CoreMLReader.read(from: path)
            XCTAssertEqual(file.model.detector, model.detector)
            XCTAssertEqual(file.model.detector?.rowsPerClass, true)
            let network = try Network(file.model)
            let pixels = try NumpyFile.read(path: folder.appendingPathComponent("pixels.npy").path)
            let picture = Image(width: 64, height: 64, channels: 3, pixels: pixels.values.map { UInt8($0) })
            let prediction = try network.predict([model.inputs[0].name: .image(picture)])
            XCTAssertEqual(prediction.outputs[model.detector!.confidenceTensor]?.shape.dimensions.dropFirst().first,
                           (layout == .yolov5 ? 252 : 84) * 3, "\(layout): N x C rows")
            let detections = try XCTUnwrap(prediction.detections)
            let opencv = try NumpyFile.read(path: folder.appendingPathComponent("per_class_kept.npy").path).values
            XCTAssertEqual(detections.count, opencv.count / 6, "\(layout)")
            var matched = Set<Int>()
            for detection in detections {
                let box = [detection.x, detection.y, detection.width, detection.height]
                let row = stride(from: 0, to: opencv.count, by: 6).first { row in
                    !matched.contains(row) && "\(Int(opencv[row]))" == detection.label && (0..<4).allSatisfy { abs(opencv[row + 2 + $0] - box[$0]) < 1e-4 }
                }
                guard let row else { XCTFail("\(layout): OpenCV keeps no \(detection.label) box at \(box)"); continue }
                matched.insert(row)
                XCTAssertEqual(detection.confidence, opencv[row + 1], accuracy: 1e-4, "\(layout)")
            }
            let boxes = detections.map { [$0.x, $0.y, $0.width, $0.height] }
            XCTAssertLessThan(Set(boxes).count, boxes.count, "\(layout): no box is kept under two labels")
        }
    }
}
