import CaffeFrontend
import Conversion
import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// A MobileNet-SSD-shaped Caffe detector (Tests/Fixtures/caffe/ssd,
/// make_ssd_fixtures.py): its PriorBox layers computed at conversion time,
/// its DetectionOutput written as decoding layers and Core ML's NMS, the
/// pipeline written, read back and run against numpy's decoding of
/// OpenCV's own location, confidence and prior blobs (before NMS) and
/// against OpenCV's DetectionOutput (after), on three inputs of 9, 5 and
/// 13 boxes.
final class SSDDetectorTests: XCTestCase {
    let folder = caffeFixtures.appendingPathComponent("ssd")
    var deploy: String { folder.appendingPathComponent("deploy.prototxt").path }
    var weights: String { folder.appendingPathComponent("weights.caffemodel").path }
    /// The fixture's nms_param top_k 100 is below its 648 priors: converted without that cap
    /// (its inputs have fewer candidates per class, so OpenCV's results are the same).
    var options: ConversionOptions {
        var options = ConversionOptions()
        options.ignoresCandidateCap = true
        return options
    }

    func network() throws -> Network {
        let model = try CaffeConverter.convert(deploy: deploy, weights: weights, options: options)
        let path = checkDirectory.appendingPathComponent("caffe_ssd.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        // scripts/check_mlmodels.py decodes it with coremltools and compares these fields.
        let expectation = path.replacingOccurrences(of: ".mlmodel", with: ".expect.json")
        try? FileManager.default.removeItem(atPath: expectation)
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Tests/Fixtures/expect/caffe_ssd.expect.json").path,
                                         toPath: expectation)
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.model.detector, model.detector)
        return try Network(file.model)
    }

    func input(_ index: Int) throws -> [String: InputValue] {
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_input.npy").path)
        return ["data": .array(Tensor(shape: TensorShape(shape), values: values))]
    }

    func testTheDetectionOutputsSettingsBecomeTheSuppressions() throws {
        let model = try CaffeConverter.convert(deploy: deploy, weights: weights, options: options)
        let detector = try XCTUnwrap(model.detector)
        XCTAssertEqual(detector.iouThreshold, 0.45)
        XCTAssertEqual(detector.confidenceThreshold, 0.3)
        XCTAssertTrue(detector.perClass)
        // Class numbers without the background's (0), as SSD numbers its labels.
        XCTAssertEqual(detector.labels, .integers([1, 2, 3, 4]))
        XCTAssertFalse(model.nodes.contains { $0.name.contains("priorbox") }, "priors are constants, not layers")
        // inspect says where they went.
        let inspected = try CaffeInspection.convert(deploy: deploy, weights: nil)
        XCTAssertEqual(inspected.computed.map(\.layer), ["conv1_mbox_priorbox", "conv2_mbox_priorbox", "mbox_priorbox"])
        XCTAssertTrue(inspected.folded.isEmpty, "\(inspected.folded)")
    }

    func testDecodedRowsMatchNumpysDecodingOfOpenCVsBlobs() throws {
        let prediction = try network().predict(try input(0))
        for (output, columns) in [("coordinates", 4), ("confidence", 4)] {
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("decoded_\(output).npy").path)
            XCTAssertEqual(reference.shape, [648, columns])
            let ours = try XCTUnwrap(prediction.outputs["raw_" + output])
            XCTAssertEqual(ours.shape.dimensions, [1, 648, columns])
            if let worst = worstMismatch(ours.values, reference.values) {
                XCTFail("\(output): value \(worst.index) (prior \(worst.index / columns)) is \(worst.ours), numpy \(worst.reference)")
            }
        }
    }

    func testKeptBoxesMatchOpenCVsDetectionOutput() throws {
        let network = try network()
        for index in 0..<3 {
            let prediction = try network.predict(try input(index))
            for output in ["confidence", "coordinates"] {
                let reference = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_\(output).npy").path)
                let ours = try XCTUnwrap(prediction.outputs[output])
                XCTAssertEqual(ours.shape.dimensions, reference.shape, "input \(index): \(output)")
                if let worst = worstMismatch(ours.values, reference.values) {
                    XCTFail("input \(index): \(output) value \(worst.index) is \(worst.ours), numpy \(worst.reference)")
                }
            }
            // OpenCV's rows: [label (background's column dropped), score, xmin, ymin, xmax, ymax].
            let opencv = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_opencv.npy").path).values
            let detections = try XCTUnwrap(prediction.detections)
            XCTAssertEqual(detections.count, opencv.count / 6, "input \(index)")
            XCTAssertGreaterThanOrEqual(detections.count, 5)
            for detection in detections {
                let corners = [detection.x - detection.width / 2, detection.y - detection.height / 2,
                               detection.x + detection.width / 2, detection.y + detection.height / 2]
                let match = stride(from: 0, to: opencv.count, by: 6).first { row in
                    Int(opencv[row]) + 1 == Int(detection.label) && (0..<4).allSatisfy { abs(opencv[row + 2 + $0] - corners[$0]) < 1e-4 }
                }
                guard let row = match else { XCTFail("input \(index): OpenCV has no \(detection.label) box at \(corners)"); continue }
                XCTAssertEqual(detection.confidence, opencv[row + 1], accuracy: 1e-4)
            }
        }
    }

    func testLabelsWithOrWithoutTheBackgroundsAndWhatIsRefused() throws {
        var options = self.options
        options.classLabels = .strings(["background", "cat", "dog", "bird", "fish"])
        XCTAssertEqual(try CaffeConverter.convert(deploy: deploy, weights: weights, options: options).detector?.labels,
                       .strings(["cat", "dog", "bird", "fish"]))
        options.classLabels = .strings(["cat", "dog", "bird", "fish"])
        XCTAssertEqual(try CaffeConverter.convert(deploy: deploy, weights: weights, options: options).detector?.labels,
                       .strings(["cat", "dog", "bird", "fish"]))
        options.classLabels = .strings(["cat", "dog"])
        options.classLabelsSource = "voc.txt"
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: deploy, weights: weights, options: options)) { error in
            XCTAssertTrue("\(error)".contains("voc.txt: 2 class labels, and the DetectionOutput of \(self.deploy) detects 4 classes: give 4 (or 5 with the background's)"),
                          "\(error)")
        }
        var given = self.options
        given.detectionThresholds = DetectionThresholds(iou: 0.3, confidence: 0.5)
        let model = try CaffeConverter.convert(deploy: deploy, weights: weights, options: given)
        XCTAssertEqual([model.detector?.iouThreshold, model.detector?.confidenceThreshold], [0.3, 0.5])
    }

    /// PriorBox without `clip` does not clip: the SSD fork's default
    /// (OpenCV's caffe.proto says true). The fixture's first PriorBox says
    /// `clip: false`; without the line its priors near the border (which
    /// reach past the image) must stay as they were.
    func testPriorBoxClipDefaultsToFalseAsInTheSSDFork() throws {
        let text = try String(contentsOfFile: deploy, encoding: .utf8)
        let path = try temporaryFolder().appendingPathComponent("deploy.prototxt").path
        try text.replacingOccurrences(of: "    clip: false\n", with: "").write(toFile: path, atomically: true, encoding: .utf8)
        let stated = try CaffeConverter.convert(deploy: deploy, weights: weights, options: options)
        let defaulted = try CaffeConverter.convert(deploy: path, weights: weights, options: options)
        let constants = { (model: Model) in model.nodes.filter { $0.name.hasPrefix("detection_out__prior") }.map(\.operation) }
        XCTAssertEqual(constants(stated).count, 2)
        XCTAssertEqual(constants(defaulted), constants(stated))
        // And clipping does change them: the second PriorBox states clip: true.
        let clipped = text.replacingOccurrences(of: "    clip: false\n", with: "    clip: true\n")
        try clipped.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertNotEqual(constants(try CaffeConverter.convert(deploy: path, weights: weights, options: options)), constants(stated))
    }

    /// The deploy file changed one line at a time: each refusal names the layer and says why.
    func testWhatTheConverterRefuses() throws {
        let text = try String(contentsOfFile: deploy, encoding: .utf8)
        let cases: [(String, String, String)] = [
            ("code_type: CENTER_SIZE", "code_type: CORNER", "code_type 1 is not converted (CENTER_SIZE"),
            ("share_location: true", "share_location: false", "share_location: false (a box per class) is not converted"),
            ("min_size: 10.0", "min_size: -10.0", "prior_box_param needs min_size values above 0 and at most 1073741824"),
            ("min_size: 10.0", "min_size: 2147483648", "prior_box_param needs min_size values above 0 and at most 1073741824"),
            ("max_size: 35.0", "max_size: 15.0", "one max_size per min_size, each larger"),
            ("max_size: 35.0", "max_size: 9223372036854775807", "one max_size per min_size, each larger (and at most 1073741824)"),
            ("aspect_ratio: 3.0", "aspect_ratio: 2147483648", "aspect_ratio 2147483648.0 is not a number above 0 and at most 1073741824"),
            ("step: 8.0", "step: inf", "step 'inf' is not a finite number"),
            ("offset: 0.5", "offset: -1", "prior_box_param's image size and step must be above 0 and at most 1073741824, its offset from 0 to 1"),
            ("variance: 0.2", "variance: nan", "variance '0.1,0.1,nan,nan' is not a finite number"),
            ("bottom: \"mbox_priorbox\"", "bottom: \"mbox_conf_flatten\"", "needs three bottoms (locations, confidences, PriorBox priors)"),
            ("bottom: \"conv1_mbox_priorbox\"\n  bottom: \"conv2_mbox_priorbox\"", "bottom: \"conv1_mbox_priorbox\"\n  bottom: \"conv2\"",
             "concatenates PriorBox outputs (along axis 2) only with each other"),
            ("num_classes: 5", "num_classes: 6", "its confidences have 3240 values; 648 priors of 6 classes call for 3888"),
        ]
        let temporary = try temporaryFolder()
        for (original, changed, words) in cases {
            XCTAssertTrue(text.contains(original), original)
            let path = temporary.appendingPathComponent("deploy.prototxt").path
            try text.replacingOccurrences(of: original, with: changed).write(toFile: path, atomically: true, encoding: .utf8)
            XCTAssertThrowsError(try CaffeConverter.convert(deploy: path, weights: weights, options: options), changed) { error in
                XCTAssertTrue("\(error)".contains(words), "\(changed): \(error)")
                XCTAssertTrue("\(error)".contains("deploy.prototxt:"), "\(error)")
            }
        }
    }
}
