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

    func testInspectReadsTheDefinitionWithOrWithoutItsWeights() throws {
        let alone = try ProgramRunner.run("coreml-inspect", [config])
        XCTAssertEqual(alone.status, 0, alone.standardError)
        XCTAssertTrue(alone.standardOutput.contains("Format:       Darknet network"), alone.standardOutput)
        XCTAssertTrue(alone.standardOutput.contains("Weights:      not given"), alone.standardOutput)
        let both = try ProgramRunner.run("coreml-inspect", [config, weights, "--weights"])
        XCTAssertEqual(both.status, 0, both.standardError)
        XCTAssertTrue(both.standardOutput.split(separator: "\n").contains { $0.hasPrefix("conv_7 ") && $0.contains(" weights  [125,32,1,1]  4,000  float32") },
                      both.standardOutput)
        XCTAssertTrue(both.standardOutput.contains("Detector:     1280 candidate boxes, 20 classes; suppression per class, IoU threshold 0.45, confidence threshold 0.25"),
                      both.standardOutput)
        let bare = try ProgramRunner.run("coreml-inspect", [weights])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(bare.standardError.contains("Darknet weights are values without names or shapes"), bare.standardError)
    }
}
