import Foundation
import TestSupport
import XCTest

/// `coreml-convert ... --convert-to mlprogram` for a detector: a package
/// whose root model is the pipeline Vision reads, inspected, predicted and
/// generated from; what does not go with it is one error line. (What it
/// computes, for every detector kind: DetectorProgramCheck's tests.)
final class ConvertDetectorProgramTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet/detector")
    var sources: [String] {
        ["darknet", folder.appendingPathComponent("model.cfg").path, folder.appendingPathComponent("model.weights").path]
    }

    func testADetectorBecomesAPipelinePackageThatIsInspectedPredictedAndGenerated() throws {
        let work = try temporaryFolder()
        let package = work.appendingPathComponent("Detector.mlpackage").path, file = work.appendingPathComponent("Detector.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", sources + ["--convert-to", "mlprogram", "--compute-precision", "float32", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        XCTAssertTrue(converted.standardOutput.hasPrefix("Wrote \(package) (ML Program computing in float32)\n"), converted.standardOutput)
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", sources + ["-q", "-o", file]).status, 0)
        let text = try ProgramRunner.run("coreml-inspect", [package]).standardOutput
        for fragment in ["Kind:         object detector (pipeline: ML program, then non-maximum suppression)\n",
                         "  iouThreshold: double (optional)\n", "  confidence: multiarray<float32,[0...,20]>\n",
                         "Detector:     1280 candidate boxes, 20 classes\n", " slice_by_index 30,", " exp 10,"] {
            XCTAssertTrue(text.contains(fragment), "\(fragment) not in:\n\(text)")
        }
        let picture = folder.appendingPathComponent("detect_0.png").path
        let ours = try ProgramRunner.run("coreml-predict", [package, picture, "--json"])
        XCTAssertEqual(ours.status, 0, ours.standardError)
        let theirs = try ProgramRunner.run("coreml-predict", [file, picture, "--json"])
        XCTAssertEqual(ours.standardOutput.replacingOccurrences(of: package, with: file), theirs.standardOutput, "the NeuralNetwork file's boxes")
        XCTAssertTrue(ours.standardOutput.contains("\"label\" : "), ours.standardOutput)
        let classes = work.appendingPathComponent("classes")
        let generated = try ProgramRunner.run("coreml-generate", [package, classes.path])
        XCTAssertEqual(generated.status, 0, generated.standardError)
        let source = try String(contentsOf: classes.appendingPathComponent("Detector.swift"), encoding: .utf8)
        for fragment in ["var confidence: MLMultiArray", "var coordinates: MLMultiArray", "var iouThreshold: Double?"] {
            XCTAssertTrue(source.contains(fragment), "\(fragment) not in the generated class")
        }
    }

    /// A target before ML programs, an output folder holding an input, a
    /// file or a folder that is not a package in the output's place: one
    /// error line each, nothing written or replaced.
    func testWhatDoesNotGoWithADetectorProgramIsOneErrorLine() throws {
        let work = try temporaryFolder()
        let holder = work.appendingPathComponent("In.mlpackage")
        try FileManager.default.createDirectory(at: holder, withIntermediateDirectories: true)
        for name in ["model.cfg", "model.weights"] {
            try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: holder.appendingPathComponent(name))
        }
        try Data("{}".utf8).write(to: holder.appendingPathComponent("Manifest.json"))
        let weightsNamedAsPackage = work.appendingPathComponent("W.mlpackage").path
        try FileManager.default.copyItem(atPath: folder.appendingPathComponent("model.weights").path, toPath: weightsNamedAsPackage)
        try FileManager.default.createDirectory(at: work.appendingPathComponent("Folder.mlpackage"), withIntermediateDirectories: false)
        let before = try FileManager.default.contentsOfDirectory(atPath: work.path).sorted()
        let cases: [([String], String, Int32)] = [
            (sources + ["--minimum-deployment-target", "iOS13", "-o", work.path + "/A.mlpackage"],
             "an ML program (--convert-to mlprogram) loads on iOS 15, macOS 12, tvOS 15, watchOS 8 and later", 64),
            (["darknet", holder.path + "/model.cfg", holder.path + "/model.weights", "-o", holder.path], "holds an input of this run", 1),
            (["darknet", sources[1], weightsNamedAsPackage, "-o", weightsNamedAsPackage], "exists and is not a folder", 1),
            (sources + ["-o", work.path + "/Folder.mlpackage"], "is a folder that is not a model package; it is not replaced", 1),
            (sources + ["--iou-threshold", "2", "-o", work.path + "/B.mlpackage"], "--iou-threshold", 64),
        ]
        for (arguments, fragment, status) in cases {
            try ProgramRunner.assertOneError("coreml-convert", arguments + ["--convert-to", "mlprogram"], fragment, status: status)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted(), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: holder.path).sorted(), ["Manifest.json", "model.cfg", "model.weights"])
    }

    /// A package whose pipeline holds a neural network where the program
    /// goes is not what the writer writes: refused by name, one line.
    func testAPackagedPipelineOfANeuralNetworkIsRefused() throws {
        let work = try temporaryFolder()
        let file = work.appendingPathComponent("Detector.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", sources + ["-q", "-o", file]).status, 0)
        let package = work.appendingPathComponent("Odd.mlpackage")
        let weights = package.appendingPathComponent("Data/com.apple.CoreML/weights")
        try FileManager.default.createDirectory(at: weights, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: file, toPath: package.appendingPathComponent("Data/com.apple.CoreML/model.mlmodel").path)
        try Data(count: 64).write(to: weights.appendingPathComponent("weight.bin"))
        try Data("{}".utf8).write(to: package.appendingPathComponent("Manifest.json"))
        try ProgramRunner.assertOneError("coreml-inspect", [package.path], "the pipeline is not a detector (an ML program, then non-maximum suppression)")
    }
}
