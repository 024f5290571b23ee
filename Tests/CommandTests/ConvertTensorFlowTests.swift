import Foundation
import TestSupport
import XCTest

/// `convert tensorflow` on a frozen graph TensorFlow wrote, and its bad inputs.
final class ConvertTensorFlowTests: XCTestCase {
    let vgg = repositoryRoot.appendingPathComponent("Tests/Fixtures/tensorflow/vgg_head")

    func testTheVGGHeadConvertsAsAClassifier() throws {
        let output = try temporaryFolder().appendingPathComponent("VGG.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", [
            "tensorflow", vgg.appendingPathComponent("graph.pb").path, "--input-shape", "input:0=1,32,32,3", "--output-feature-name", "Identity:0",
            "--image-input", "input:0", "--image-scale", "0.00392156862745098", "--red-bias", "-0.5", "--green-bias", "-0.5",
            "--blue-bias", "-0.5", "--class-labels", vgg.appendingPathComponent("labels.txt").path, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("input: image<RGB,32x32>"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("Labels:       10"), result.standardOutput)
    }

    func testBadInputsAreOneLineAndWriteNothing() throws {
        let folder = try temporaryFolder()
        func write(_ name: String, _ text: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try text.write(to: url, atomically: false, encoding: .utf8)
            return url.path
        }
        let placeholder = "node { name: \"x\" op: \"Placeholder\" attr { key: \"shape\" value { shape { dim { size: 1 } dim { size: 4 } } } } }\n"
        let unknown = try write("unknown.pbtxt", placeholder + "node { name: \"a\" op: \"Fancy\" input: \"x\" }\nnode { name: \"b\" op: \"Fancier\" input: \"a\" }\n")
        let cycle = try write("cycle.pbtxt", placeholder + "node { name: \"a\" op: \"Relu\" input: \"b\" }\nnode { name: \"b\" op: \"Relu\" input: \"a\" }\n")
        let relu = try write("relu.pbtxt", placeholder + "node { name: \"r\" op: \"Relu\" input: \"x\" }\n")
        let broken = try write("broken.pbtxt", placeholder + "node { name: \"r\" op: \"Relu\" input: \"x\" \n")
        let graph = try Data(contentsOf: vgg.appendingPathComponent("graph.pb"))
        let truncated = folder.appendingPathComponent("truncated.pb")
        try graph.prefix(graph.count / 3).write(to: truncated)
        let cases: [(String, [String], String)] = [
            ("unknown ops", [unknown], "unknown.pbtxt: 2 nodes of 2 unsupported op types: Fancy x1 (a); Fancier x1 (b)"),
            ("cycle", [cycle, "--output-feature-name", "b"], "cycle"),
            ("input shape", [relu, "--input-shape", "x=1,5"], "does not match the graph's [1, 4]"),
            ("text syntax", [broken], "broken.pbtxt:3:1: expected '}'"),
            ("truncated", [truncated.path], "truncated.pb: byte "),
        ]
        for (what, arguments, fragment) in cases {
            let output = folder.appendingPathComponent("\(what).mlmodel").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: output))
            let result = try ProgramRunner.run("coreml-convert", ["tensorflow"] + arguments + ["-o", output])
            XCTAssertEqual(result.status, 1, "\(what): \(result.standardError)")
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "\(what): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(fragment), "\(what): \(result.standardError)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data("old".utf8), "\(what): output touched")
        }
    }
}
