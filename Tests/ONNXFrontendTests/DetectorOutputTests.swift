import Conversion
import CoreMLBackend
import Foundation
import Images
import ModelFormat
import ONNXFrontend
import Runtime
import TestSupport
import XCTest

/// YOLOv5- and YOLOv8-style detectors PyTorch exported with their decoding
/// in the graph (make_onnx_yolo_fixtures.py: the exporters' layer layout,
/// reduced), converted with `detectorOutput`, written, read back and run on
/// the fixture's picture: the detector's rows against numpy's reading of
/// onnxruntime's output in the layout, the kept rows against numpy's
/// Core ML suppression.
final class DetectorOutputTests: XCTestCase {
    func folder(_ layout: DetectorOutputLayout) -> URL { onnxFixtures.appendingPathComponent("\(layout.rawValue)_detector") }

    func convert(_ layout: DetectorOutputLayout, labels: ClassLabels? = nil, configure: (inout ConversionOptions) -> Void = { _ in }) throws -> Model {
        var options = ConversionOptions()
        options.detectorOutput = layout
        options.classLabels = labels
        configure(&options)
        return try ONNXConverter.convert(model: folder(layout).appendingPathComponent("model.onnx").path, options: options)
    }

    func testRowsAndKeptBoxesMatchNumpyOnOnnxruntimesOutput() throws {
        for layout in DetectorOutputLayout.allCases {
            let model = try convert(layout, labels: .strings(["cat", "dog", "bird"]))
            XCTAssertEqual(model.detector?.labels, .strings(["cat", "dog", "bird"]))
            XCTAssertEqual([model.detector?.iouThreshold, model.detector?.confidenceThreshold], [layout == .yolov5 ? 0.45 : 0.7, 0.25])
            // No image options given: the one input is an RGB image scaled by 1/255, as the exports take it.
            let image = try XCTUnwrap(model.inputs.first?.image, "\(layout)")
            XCTAssertEqual([image.width, image.height], [64, 64])
            XCTAssertEqual(image.scale, 1 / 255)
            XCTAssertEqual(image.colorSpace, .rgb)
            let path = checkDirectory.appendingPathComponent("onnx_\(layout.rawValue)_detector.mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let network = try Network(contentsOf: path)
            let pixels = try NumpyFile.read(path: folder(layout).appendingPathComponent("pixels.npy").path)
            XCTAssertEqual(pixels.shape, [64, 64, 3])
            let picture = Image(width: 64, height: 64, channels: 3, pixels: pixels.values.map { UInt8($0) })
            let prediction = try network.predict([model.inputs[0].name: .image(picture)])
            for (output, file) in [("raw_confidence", "decoded_confidence"), ("raw_coordinates", "decoded_coordinates"),
                                   ("confidence", "kept_confidence"), ("coordinates", "kept_coordinates")] {
                let reference = try NumpyFile.read(path: folder(layout).appendingPathComponent("\(file).npy").path)
                let ours = try XCTUnwrap(prediction.outputs[output], "\(layout) \(output)")
                XCTAssertEqual(ours.values.count, reference.values.count, "\(layout) \(output)")
                if let worst = worstMismatch(ours.values, reference.values) {
                    XCTFail("\(layout) \(output): value \(worst.index) is \(worst.ours), numpy \(worst.reference)")
                }
            }
            XCTAssertGreaterThanOrEqual(prediction.detections?.count ?? 0, 10, "\(layout)")
        }
    }

    func testLayoutMistakesAreRefusedByName() throws {
        // YOLOv5's [1, 252, 8] read as YOLOv8's columns: 8 boxes of 248 classes, fewer boxes than columns.
        var options = ConversionOptions()
        options.detectorOutput = .yolov8
        XCTAssertThrowsError(try ONNXConverter.convert(model: folder(.yolov5).appendingPathComponent("model.onnx").path, options: options)) { error in
            XCTAssertTrue("\(error)".contains("would be 8 boxes of 248 classes, fewer boxes than columns: is it yolov5's layout?"), "\(error)")
        }
        // With labels (given, or the names in the file's metadata) that count the other layout's classes, the error says which layout fits.
        options.classLabels = .strings(["cat", "dog", "bird"])
        XCTAssertThrowsError(try ONNXConverter.convert(model: folder(.yolov5).appendingPathComponent("model.onnx").path, options: options)) { error in
            XCTAssertTrue("\(error)".contains("holds 3 classes as yolov5 lays them out, as many as the labels: give detectorOutput yolov5"), "\(error)")
        }
        options.classLabels = nil
        options.detectorOutput = .yolov5
        XCTAssertThrowsError(try ONNXConverter.convert(model: folder(.yolov8).appendingPathComponent("model.onnx").path, options: options)) { error in
            XCTAssertTrue("\(error)".contains("holds 3 classes as yolov8 lays them out, as many as the labels: give detectorOutput yolov8"), "\(error)")
        }
        // Labels that fit neither layout: the labels file is what does not fit.
        XCTAssertThrowsError(try convert(.yolov8, labels: .strings(["cat", "dog"]))) { error in
            XCTAssertTrue("\(error)".contains("2 class labels, and the yolov8 output 'output0' detects 3 classes"), "\(error)")
        }
        XCTAssertThrowsError(try convert(.yolov8) { $0.classMap = true }) { error in
            XCTAssertTrue("\(error)".contains("makes the model a detector; it does not go with"), "\(error)")
        }
    }

    func testGivenThresholdsAndImageOptionsWin() throws {
        let model = try convert(.yolov8) { options in
            options.detectionThresholds = DetectionThresholds(iou: 0.5, confidence: 0.4)
            options.imageInputNames = ["images"]
            options.isBGR = true
        }
        XCTAssertEqual([model.detector?.iouThreshold, model.detector?.confidenceThreshold], [0.5, 0.4])
        XCTAssertEqual(model.inputs.first?.image?.colorSpace, .bgr)
        XCTAssertEqual(model.inputs.first?.image?.scale, 1, "given image options are taken as given")
        // No labels given: the names Ultralytics' exporter wrote into the file's metadata (one holds a quote).
        XCTAssertEqual(model.detector?.labels, .strings(["cat", "dog's", "bird"]))
        XCTAssertEqual(try convert(.yolov5).detector?.labels, .integers([0, 1, 2]), "no metadata: the class numbers")
    }

    /// Ultralytics' metadata: a task other than detect is refused; names
    /// the count does not fit are the labels that do not fit.
    func testExporterMetadataIsReadOrRefusedByName() throws {
        var plain = ConversionOptions()
        plain.imageInputNames = ["images"]
        let network = try ONNXConverter.convert(model: folder(.yolov8).appendingPathComponent("model.onnx").path, options: plain)
        for (key, value, expected) in [("task", "pose", "the model's metadata says its task is 'pose' (an Ultralytics export)"),
                                       ("names", "{0: 'cat', 1: 'dog'}", "the model's metadata names 2 classes ('names'), and output 'output0' [1, 7, 84] holds 3: give classLabels"),
                                       ("task", "detect\n\u{1B}[2J", "its task is 'detect\\n\\u{1B}[2J'")] {
            var model = network
            var options = ConversionOptions()
            options.detectorOutput = .yolov8
            options.metadata.userDefined = [(key: key, value: value)]
            XCTAssertThrowsError(try options.applyDetectorOutput(to: &model)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }

    func testPythonNamesAreReadStrictly() {
        XCTAssertEqual(ConversionOptions.pythonNames("{0: 'person', 1: \"dog's\", 2: 'a\\'b'}"), ["person", "dog's", "a'b"])
        XCTAssertEqual(ConversionOptions.pythonNames("['cat', 'dog']"), ["cat", "dog"])
        XCTAssertEqual(ConversionOptions.pythonNames("{}"), [])
        for text in ["{1: 'cat'}", "{0: 'cat', 2: 'dog'}", "{0: 'cat'", "{0: cat}", "['cat' 'dog']", "{0: 'cat'} x", "{0: '\\x41'}", "person"] {
            XCTAssertNil(ConversionOptions.pythonNames(text), text)
        }
    }
}
