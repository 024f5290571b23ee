import Conversion
import CoreMLBackend
import DarknetFrontend
import Foundation
import ImageFiles
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// Two [yolo] heads (make_darknet_fixtures.py, cases yolo_heads and
/// yolo_detector: anchors by mask in pixels of a 64x48 input, scale_x_y
/// 1.05 on the first head, 3 classes; yolo_new_coords), converted, written, read back and
/// run: the raw grids against OpenCV dnn's, the decoded rows against
/// numpy's decoding (which the script checks against OpenCV's [yolo]
/// layers), the detector's boxes against numpy + Core ML's NMS and
/// OpenCV's rows through cv2.dnn.NMSBoxesBatched.
final class DarknetYOLOTests: XCTestCase {
    func convert(_ name: String, region: RegionOutput, imageInput: Bool = false) throws -> (Network, Model) {
        let folder = darknetFixtures.appendingPathComponent(name)
        var options = ConversionOptions()
        if region == .detector { options.detectionThresholds = DetectionThresholds(iou: 0.45, confidence: 0.25) }
        let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                 weights: folder.appendingPathComponent("model.weights").path, options: options,
                                                 imageInput: imageInput, region: region)
        let path = checkDirectory.appendingPathComponent("darknet_\(name)_\(region).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        return (try Network(try CoreMLReader.read(from: path).model), model)
    }

    func input(_ name: String) throws -> [String: InputValue] {
        let (shape, values) = try NumpyFile.read(path: darknetFixtures.appendingPathComponent("\(name)/input.npy").path)
        return ["image": .array(Tensor(shape: TensorShape(shape), values: values))]
    }

    func compare(_ ours: Tensor?, _ file: String, shape: [Int], _ what: String) throws {
        let reference = try NumpyFile.read(path: darknetFixtures.appendingPathComponent(file).path)
        let ours = try XCTUnwrap(ours, what)
        XCTAssertEqual(ours.shape.dimensions.filter { $0 != 1 }, reference.shape.filter { $0 != 1 }, what)
        XCTAssertEqual(ours.shape.dimensions, shape, what)
        if let worst = worstMismatch(ours.values, reference.values) {
            XCTFail("\(what): value \(worst.index) is \(worst.ours), reference \(worst.reference)")
        }
    }

    func testRawGridsMatchOpenCV() throws {
        let (network, model) = try convert("yolo_heads", region: .grid)
        XCTAssertEqual(model.outputs.map(\.name), ["conv_10", "conv_16"])
        XCTAssertTrue(model.nodes.contains { $0.name == "upsample_14" })
        let prediction = try network.predict(try input("yolo_heads"))
        try compare(prediction.outputs["conv_10"], "yolo_heads/grid_0.npy", shape: [24, 12, 16], "head 0")
        try compare(prediction.outputs["conv_16"], "yolo_heads/grid_1.npy", shape: [24, 24, 32], "head 1")
    }

    func testDecodedRowsMatchNumpy() throws {
        let (network, model) = try convert("yolo_heads", region: .rows)
        XCTAssertEqual(model.outputs.map(\.name), ["raw_confidence", "raw_coordinates"])
        let prediction = try network.predict(try input("yolo_heads"))
        // 12 x 16 x 3 rows of the first head, then 24 x 32 x 3 of the second.
        try compare(prediction.outputs["raw_coordinates"], "yolo_heads/decoded_coordinates.npy", shape: [1, 2880, 4], "coordinates")
        try compare(prediction.outputs["raw_confidence"], "yolo_heads/decoded_confidence.npy", shape: [1, 2880, 3], "confidence")
    }

    /// new_coords=1 (YOLOv7-tiny's heads: a logistic activation before, no
    /// sigmoid in the decoding, sizes 4 t² anchors) with scale_x_y=2.
    func testNewCoordsRowsMatchNumpy() throws {
        let (network, model) = try convert("yolo_new_coords", region: .rows)
        XCTAssertTrue(model.nodes.contains { $0.name == "yolo_11_0_w_square" })
        XCTAssertFalse(model.nodes.contains { $0.name == "yolo_11_0_x_sigmoid" })
        let prediction = try network.predict(try input("yolo_new_coords"))
        try compare(prediction.outputs["raw_coordinates"], "yolo_new_coords/decoded_coordinates.npy", shape: [1, 2880, 4], "coordinates")
        try compare(prediction.outputs["raw_confidence"], "yolo_new_coords/decoded_confidence.npy", shape: [1, 2880, 3], "confidence")
    }

    func testLabelsMustNameEveryClass() throws {
        let folder = darknetFixtures.appendingPathComponent("yolo_detector")
        let config = folder.appendingPathComponent("model.cfg").path
        var options = ConversionOptions()
        options.classLabels = .strings(["cat", "dog"])
        options.classLabelsSource = "labels.txt"
        XCTAssertThrowsError(try DarknetConverter.convert(config: config, weights: folder.appendingPathComponent("model.weights").path, options: options)) { error in
            XCTAssertTrue("\(error)".contains("labels.txt: 2 class labels, and the [yolo] decoding of \(config) detects 3 classes: give 3"), "\(error)")
        }
    }

    func testDetectorBoxesMatchNumpyAndOpenCV() throws {
        let (network, model) = try convert("yolo_detector", region: .detector, imageInput: true)
        XCTAssertEqual(model.detector?.labels, .integers([0, 1, 2]))
        let folder = darknetFixtures.appendingPathComponent("yolo_detector")
        for index in 0..<3 {
            let picture = try ImageFile.read(path: folder.appendingPathComponent("detect_\(index).png").path)
            let prediction = try network.predict(["image": .image(picture)])
            let kept = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_confidence.npy").path).shape[0]
            try compare(prediction.outputs["confidence"], "yolo_detector/detect_\(index)_confidence.npy", shape: [kept, 3], "picture \(index) confidence")
            try compare(prediction.outputs["coordinates"], "yolo_detector/detect_\(index)_coordinates.npy", shape: [kept, 4], "picture \(index) coordinates")
            let opencv = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_opencv.npy").path).values
            let detections = try XCTUnwrap(prediction.detections)
            XCTAssertGreaterThanOrEqual(detections.count, 19)
            assertSameDetections(detections, opencv: opencv, "picture \(index)")
            XCTAssertEqual(Set(detections.map(\.label)).count, 3, "picture \(index)")
        }
    }
}
