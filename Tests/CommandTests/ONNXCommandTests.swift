import Foundation
import TestSupport
import XCTest

/// `coreml-convert onnx` and `coreml-inspect` on ONNX files as a user runs them.
final class ONNXCommandTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx").path + "/"
    var resnet: String { fixtures + "resnet_opset13/model.onnx" }

    func testConvertsAClassifierWithImageInputAndLabels() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt").path
        try (0..<10).map { "class \($0)" }.joined(separator: "\n").write(toFile: labels, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("ResNet.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--image-input", "input", "--image-scale", "0.0078125",
                                                              "--class-labels", labels, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("input: image<RGB,32x32>"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("Labels:       10 (class 0, class 1,"), result.standardOutput)
        let predicted = try ProgramRunner.run("coreml-predict", [output, repositoryRoot.appendingPathComponent("Samples/face.png").path])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        XCTAssertTrue(predicted.standardOutput.contains("class "), predicted.standardOutput)
    }

    /// A segmentation network with --class-map: its output is each pixel's
    /// class, its labels in Xcode's preview metadata; predict writes the map.
    func testConvertsASegmentationModelWithAClassMap() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt").path
        try "background\nroad\ncar\nperson\nsky\n".write(toFile: labels, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("Segmenter.mlmodel").path
        let segmenter = fixtures + "segmenter_opset13/model.onnx"
        let result = try ProgramRunner.run("coreml-convert", ["onnx", segmenter, "--image-input", "input", "--class-map", "--class-labels", labels,
                                                              "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("classMap"), result.standardOutput)
        let inspected = try ProgramRunner.run("coreml-inspect", [output])
        XCTAssertTrue(inspected.standardOutput.contains("com.apple.coreml.model.preview.type = imageSegmenter"), inspected.standardOutput)
        let npy = folder.appendingPathComponent("out")
        let predicted = try ProgramRunner.run("coreml-predict", [output, repositoryRoot.appendingPathComponent("Samples/face.png").path,
                                                                "--output-npy", npy.path])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        XCTAssertTrue(FileManager.default.fileExists(atPath: npy.appendingPathComponent("classMap.npy").path))

        // Mistakes: labels that do not count the classes; a classifier's scores; a label output's name.
        try "a\nb\n".write(toFile: labels, atomically: true, encoding: .utf8)
        let wrongCount = try ProgramRunner.run("coreml-convert", ["onnx", segmenter, "--class-map", "--class-labels", labels, "-o", output])
        XCTAssertEqual(wrongCount.status, 1)
        XCTAssertEqual(wrongCount.standardError, "error: \(labels): 2 class labels, but output 'output' scores 5 classes a pixel\n")
        let classifier = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--class-map", "-o", output])
        XCTAssertEqual(classifier.status, 1)
        XCTAssertTrue(classifier.standardError.contains("--class-map takes per-pixel class scores [C, H, W]"), classifier.standardError)
        let named = try ProgramRunner.run("coreml-convert", ["onnx", segmenter, "--class-map", "--predicted-feature-name", "x", "--class-labels",
                                                             labels, "-o", output])
        XCTAssertEqual(named.status, 64, named.standardError)
    }

    /// A YOLOv8-style export with --detector: the Vision pipeline, an RGB
    /// image input without image options, boxes from predict; mistakes as usage errors.
    func testConvertsAYOLODetectorWithDetector() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt").path
        try "cat\ndog\nbird\n".write(toFile: labels, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("YOLO.mlmodel").path
        let yolov8 = fixtures + "yolov8_detector/model.onnx"
        let result = try ProgramRunner.run("coreml-convert", ["onnx", yolov8, "--detector", "yolov8", "--class-labels", labels,
                                                              "--confidence-threshold", "0.3", "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        for line in ["images: image<RGB,64x64>", "Kind:         object detector", "Labels:       3 (cat, dog, bird)",
                     "suppression per class, IoU threshold 0.7, confidence threshold 0.3"] {
            XCTAssertTrue(result.standardOutput.contains(line), "\(line)\n\(result.standardOutput)")
        }
        let predicted = try ProgramRunner.run("coreml-predict", [output, repositoryRoot.appendingPathComponent("Samples/face.png").path,
                                                                "--crop-and-scale", "scaleFit", "--json"])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        XCTAssertTrue(predicted.standardOutput.contains("\"detections\""), predicted.standardOutput)

        for (arguments, message) in [
            (["--detector", "yolov9"], "error: invalid value 'yolov9' for '--detector': takes yolov5 or yolov8, not 'yolov9'"),
            (["--iou-threshold", "0.5"], "error: --iou-threshold and --confidence-threshold apply to a detector: give --detector"),
            (["--detector", "yolov8", "--add-softmax", "--class-labels", labels], "error: --detector yolov8 makes the model a detector; it does not go with --add-softmax"),
            (["--detector", "yolov8", "--iou-threshold", "2"], "error: --iou-threshold takes a value from 0 to 1, not 2.0"),
        ] {
            let refused = try ProgramRunner.run("coreml-convert", ["onnx", yolov8] + arguments + ["-o", output])
            XCTAssertEqual(refused.status, 64, "\(arguments)")
            XCTAssertTrue(refused.standardError.hasPrefix(message), "\(arguments): \(refused.standardError)")
        }
        // The other layout, or a model whose output is no boxes: the file's error, exit 1, the flag named.
        let swapped = try ProgramRunner.run("coreml-convert", ["onnx", yolov8, "--detector", "yolov5", "--class-labels", labels, "-o", output])
        XCTAssertEqual(swapped.status, 1)
        XCTAssertTrue(swapped.standardError.contains("as many as the labels: give --detector yolov8"), swapped.standardError)
        let classifier = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--detector", "yolov8", "-o", output])
        XCTAssertEqual(classifier.status, 1)
        XCTAssertTrue(classifier.standardError.contains("--detector yolov8 takes an output [1, 4 + classes, boxes]; 'output' is 10x1x1"),
                      classifier.standardError)
    }

    func testInspectReadsONNXAsConvertWould() throws {
        let result = try ProgramRunner.run("coreml-inspect", [resnet])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Format:       ONNX model"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("convolution 6"), result.standardOutput)
        // Where the file came from, carried into the model's metadata.
        XCTAssertTrue(result.standardOutput.contains("onnx.opset = 13"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("onnx.producer = pytorch 2.13.0"), result.standardOutput)
    }

    func testMistakesAreOneError() throws {
        let output = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", resnet, "-o", output],
                                         "is an ONNX model, not a TensorFlow graph: convert it with coreml-convert onnx")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", repositoryRoot.appendingPathComponent("Samples/deploy_age.prototxt").path, "-o", output],
                                         "is a Caffe deploy definition (prototxt), not an ONNX model")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--input-shape", "inptu=1,3,32,32", "-o", output],
                                         "--input-shape 'inptu': the model has no input of that name (its inputs: input); did you mean 'input'?", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--input-shape", "input=1,3,32,33", "-o", output],
                                         "--input-shape input: size 33 at axis 3 differs from the model's 32", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", fixtures + "ops/unsupported_ops.onnx", "-o", output],
                                         "3 nodes of 2 unsupported op types: LSTM x2 (lstm_a, lstm_b); NonMaxSuppression x1 (nms)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }
}
