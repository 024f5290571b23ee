import Foundation
import TestSupport
import XCTest

/// `convert darknet` and `inspect` on Darknet files, told apart by content.
final class DarknetCommandTests: XCTestCase {
    let tiny = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet/tiny_yolo")
    var config: String { tiny.appendingPathComponent("model.cfg").path }
    var weights: String { tiny.appendingPathComponent("model.weights").path }

    func testConvertsInEitherOrderAndRefusesOtherFiles() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("YOLO.mlmodel").path
        for pair in [[config, weights], [weights, config]] {
            let result = try ProgramRunner.run("coreml-convert", ["darknet"] + pair + ["-o", output])
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.contains("image: image<RGB,64x64>"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.contains("confidence: multiarray<double,[0...,20]>"), result.standardOutput)
        }
        // The raw grid, on request.
        let grid = try ProgramRunner.run("coreml-convert", ["darknet", config, weights, "--region-output", "grid", "-o", output])
        XCTAssertEqual(grid.status, 0, grid.standardError)
        XCTAssertTrue(grid.standardOutput.contains("conv_7: multiarray<double,[125,16,16]>"), grid.standardOutput)
        let png = repositoryRoot.appendingPathComponent("Samples/face.png").path
        let caffemodel = repositoryRoot.appendingPathComponent("Samples/age_net.caffemodel").path
        for (pair, words) in [([png, weights], "face.png: is a PNG image, not a Darknet network definition (.cfg)"),
                              ([config, caffemodel], "age_net.caffemodel: is Caffe weights (.caffemodel), not Darknet weights (.weights): convert a deploy definition")] {
            let other = folder.appendingPathComponent("other.mlmodel").path
            let result = try ProgramRunner.run("coreml-convert", ["darknet"] + pair + ["-o", other])
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains(words), result.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: other))
        }
        // A Darknet file given to another converter says which program takes it.
        let caffe = try ProgramRunner.run("coreml-convert", ["tensorflow", config, "-o", folder.appendingPathComponent("t.mlmodel").path])
        XCTAssertTrue(caffe.standardError.contains("is a Darknet network definition (.cfg), not a TensorFlow graph: convert a network definition "
                                                   + "and its weights with coreml-convert darknet"), caffe.standardError)
    }

    /// A labels file that does not fit the detector's classes is a file
    /// that does not fit the model (exit 1, as for a classifier), not a
    /// usage mistake (it was exit 64 with the usage hint).
    func testLabelsThatDoNotFitTheClassesAreAFileError() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("two.txt")
        try "a\nb\n".write(to: labels, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("YOLO.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", config, weights, "--class-labels", labels.path, "-o", output],
                                         "two.txt: 2 class labels, and the [region] layer of \(config) detects 20 classes: give 20")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testInspectReadsTheDefinitionWithOrWithoutItsWeights() throws {
        let alone = try ProgramRunner.run("coreml-inspect", [config])
        XCTAssertEqual(alone.status, 0, alone.standardError)
        XCTAssertTrue(alone.standardOutput.contains("Format:       Darknet network"), alone.standardOutput)
        XCTAssertTrue(alone.standardOutput.contains("Weights:      not given"), alone.standardOutput)
        let both = try ProgramRunner.run("coreml-inspect", [config, weights, "--weight-stats"])
        XCTAssertEqual(both.status, 0, both.standardError)
        XCTAssertTrue(both.standardOutput.split(separator: "\n").contains { $0.hasPrefix("conv_7 ") && $0.contains(" weights  [125,32,1,1]  4,000  float32") },
                      both.standardOutput)
        XCTAssertTrue(both.standardOutput.contains("Detector:     1280 candidate boxes, 20 classes\n              suppression per class, IoU threshold 0.45, confidence threshold 0.25"),
                      both.standardOutput)
        let bare = try ProgramRunner.run("coreml-inspect", [weights])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(bare.standardError.contains("Darknet weights are values without names or shapes"), bare.standardError)
    }

    /// predict on a detector: one line per box, --json, --draw, threshold overrides, and what does not apply.
    func testPredictPrintsAndDrawsTheBoxes() throws {
        let fixture = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet/detector")
        let folder = try temporaryFolder()
        let model = folder.appendingPathComponent("Detector.mlmodel").path
        let convert = try ProgramRunner.run("coreml-convert", ["darknet", fixture.appendingPathComponent("model.cfg").path,
                                                               fixture.appendingPathComponent("model.weights").path,
                                                               "--iou-threshold", "0.4", "--confidence-threshold", "0.2", "-o", model])
        XCTAssertEqual(convert.status, 0, convert.standardError)
        XCTAssertTrue(convert.standardOutput.contains("Detector:     1280 candidate boxes, 20 classes\n              suppression per class, IoU threshold 0.4, confidence threshold 0.2"),
                      convert.standardOutput)
        let picture = fixture.appendingPathComponent("detect_1.png").path
        let drawing = folder.appendingPathComponent("boxes.png").path
        let text = try ProgramRunner.run("coreml-predict", [model, picture, "--draw", drawing])
        XCTAssertEqual(text.status, 0, text.standardError)
        // OpenCV's five boxes, in pixels of the 64x64 picture (scaleFill: fractions times 64).
        let opencv = try float32s(npy: fixture.appendingPathComponent("detect_1_opencv.npy"))
        // The images and orientation lines, the picture's path, the count of boxes, then the boxes.
        let lines = text.standardOutput.split(separator: "\n").dropFirst(4)
        XCTAssertEqual(lines.count, opencv.count / 6, text.standardOutput)
        for row in stride(from: 0, to: opencv.count, by: 6) {
            let (x, y, w, h) = (opencv[row] * 64, opencv[row + 1] * 64, opencv[row + 2] * 64, opencv[row + 3] * 64)
            let expected = String(format: "%d  %.4f  left %.1f, top %.1f, width %.1f, height %.1f", Int(opencv[row + 4]), opencv[row + 5],
                                  x - w / 2, y - h / 2, w, h)
            XCTAssertTrue(lines.contains { $0.trimmingCharacters(in: .whitespaces) == expected }, "\(expected) in\n\(text.standardOutput)")
        }
        let drawn = try Data(contentsOf: URL(fileURLWithPath: drawing))
        XCTAssertEqual(Array(drawn.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // The header's size (IHDR: width and height, big-endian, at bytes 16-23) is the picture's.
        XCTAssertEqual(Array(drawn[16..<24]), [0, 0, 0, 64, 0, 0, 0, 64])
        XCTAssertNotEqual(drawn, try Data(contentsOf: URL(fileURLWithPath: picture)))

        let json = try ProgramRunner.run("coreml-predict", [model, picture, "--json", "--confidence-threshold", "0.3"])
        XCTAssertEqual(json.status, 0, json.standardError)
        let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        let detections = try XCTUnwrap(results.first?["detections"] as? [[String: Any]])
        let strong = stride(from: 0, to: opencv.count, by: 6).filter { opencv[$0 + 5] >= 0.3 }
        XCTAssertEqual(detections.count, strong.count, json.standardOutput)
        XCTAssertEqual((detections.first?["box"] as? [String: Double])?.keys.sorted(), ["height", "left", "top", "width"])

        for (arguments, words) in [([model, picture, "--iou-threshold", "1.5"], "--iou-threshold takes a value from 0 to 1, not 1.5"),
                                   ([model, picture, picture, "--draw", drawing], "--draw writes one picture: give one image, not 2"),
                                   ([model, picture, "--draw", folder.appendingPathComponent("boxes.jpg").path], "--draw writes a PNG file"),
                                   ([repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization/float.mlmodel").path, "--draw", drawing],
                                    "--draw applies to object detectors, and this model is not one")] {
            let result = try ProgramRunner.run("coreml-predict", arguments)
            XCTAssertEqual(result.status, 64, result.standardError)
            XCTAssertTrue(result.standardError.contains(words), result.standardError)
        }
        // The picture itself is never the drawing.
        let over = try ProgramRunner.run("coreml-predict", [model, drawing, "--draw", drawing])
        XCTAssertEqual(over.status, 1, over.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: drawing)), drawn)
    }

    /// The values of a little-endian float32 .npy file (version 1 header).
    func float32s(npy url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        let headerLength = Int(data[8]) | Int(data[9]) << 8
        XCTAssertTrue(String(decoding: data[10..<10 + headerLength], as: UTF8.self).contains("'<f4'"))
        return data[(10 + headerLength)...].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
