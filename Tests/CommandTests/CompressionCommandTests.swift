import Foundation
import TestSupport
import XCTest

/// `convert --precision`, `--quantize-weights`, `--quantization`, `--probe`
/// and `convert mlmodel`, as a user types them: mistakes are usage errors
/// (exit 64, nothing written), a compressed conversion ends with its
/// fidelity report, and an existing model can be compressed without the
/// file it came from being touched.
final class CompressionCommandTests: XCTestCase {
    let quantization = repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization")
    let face = repositoryRoot.appendingPathComponent("Samples/face.png").path

    func assertUsageError(_ arguments: [String], _ fragment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try temporaryFolder()
        let result = try ProgramRunner.run("coreml-convert", arguments + ["-o", folder.appendingPathComponent("out.mlmodel").path])
        XCTAssertEqual(result.status, 64, result.standardError, file: file, line: line)
        XCTAssertEqual(result.standardError.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count, 1, result.standardError, file: file, line: line)
        XCTAssertTrue(result.standardError.contains(fragment), "'\(fragment)' not in: \(result.standardError)", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing written", file: file, line: line)
    }

    func testOptionMistakesAreUsageErrors() throws {
        for bits in ["0", "9", "16", "-1", "2147483648", "9223372036854775807", "nan", "eight"] {
            try assertUsageError(["sample", "--quantize-weights", bits], "--quantize-weights takes a number of bits from 1 to 8")
        }
        try assertUsageError(["sample", "--precision", "float8"], "--precision takes float32 or float16, not 'float8'")
        try assertUsageError(["sample", "--precision", "float64"], "--precision takes float32 or float16")
        try assertUsageError(["sample", "--precision", "float16", "--quantize-weights", "8"], "choose one")
        try assertUsageError(["sample", "--quantization", "kmeans-lut"], "give the bits with --quantize-weights")
        try assertUsageError(["sample", "--quantize-weights", "4", "--quantization", "linear-symmetric"], "linear-symmetric is for 8 bits, not 4")
        try assertUsageError(["sample", "--quantize-weights", "4", "--quantization", "median"], "--quantization takes linear, linear-symmetric, linear-lut, kmeans-lut")
        try assertUsageError(["sample", "--probe", face], "--probe is the input of the fidelity report of a compressed model")
    }

    func testACompressedConversionEndsWithItsFidelityReport() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("age.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["sample", "--quantize-weights", "8", "--probe", face, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Parameters:   51,368 (8-bit linear, 50.2 KB)"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("Fidelity:     float32 -> 8-bit linear, on \(face)"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("(0.25x)"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains(", the same"), result.standardOutput)

        let json = try ProgramRunner.run("coreml-convert", ["sample", "--precision", "float16", "--json", "-o", output])
        XCTAssertEqual(json.status, 0, json.standardError)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let fidelity = try XCTUnwrap(document["fidelity"] as? [String: Any])
        XCTAssertEqual(fidelity["precision"] as? String, "float16")
        XCTAssertEqual(fidelity["probe"] as? String, "seeded random values (seed 2019)")
        XCTAssertEqual(try XCTUnwrap(fidelity["sizeRatio"] as? Double), 0.5, accuracy: 0.01)
        XCTAssertEqual((fidelity["topLabel"] as? [String: Any])?["agrees"] as? Bool, true)
        let difference = try XCTUnwrap((fidelity["outputs"] as? [[String: Any]])?.first?["maximumDifference"] as? Double)
        XCTAssertLessThan(difference, 1e-3, "float16 moves probabilities by little")
    }

    /// `convert mlmodel` compresses an existing model; the source stays as it was.
    func testAnExistingModelIsCompressedAndItsFileKept() throws {
        let folder = try temporaryFolder()
        let source = folder.appendingPathComponent("float.mlmodel").path
        try FileManager.default.copyItem(atPath: quantization.appendingPathComponent("float.mlmodel").path, toPath: source)
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        let output = folder.appendingPathComponent("small.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["mlmodel", source, "--quantize-weights", "4", "--quantization", "kmeans_lut",
                                                              "--probe", "x=" + quantization.appendingPathComponent("input_x.npy").path, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("Format:       Core ML model, specification version 3"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("4-bit lookup table"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("on x="), result.standardOutput)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before)
        // The output cannot be the model it is made from.
        let same = try ProgramRunner.run("coreml-convert", ["mlmodel", source, "--precision", "float16", "-o", source])
        XCTAssertNotEqual(same.status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), before)
        // A probe that does not fit is one error before anything is written.
        let other = folder.appendingPathComponent("other.mlmodel").path
        for (probe, words) in [("y=" + source, "the model has no array input 'y' (its array inputs: x)"), (face, "no image input left for it"),
                               ("x=" + source, "float.mlmodel"), ("x=", "--probe x=: an array input's probe is name=x.npy")] {
            let wrong = try ProgramRunner.run("coreml-convert", ["mlmodel", source, "--precision", "float16", "--probe", probe, "-o", other])
            XCTAssertEqual(wrong.status, 1, wrong.standardError)
            XCTAssertTrue(wrong.standardError.contains(words), wrong.standardError)
            XCTAssertFalse(FileManager.default.fileExists(atPath: other))
        }
    }
}

/// Whole models from each frontend at float16 and 8 bits: the top label
/// agrees with float32, and the probabilities move by no more than a bound
/// derived from the quantization step.
///
/// The bound: a weight stored in float16 is within a relative 2^-11 of
/// its value; at 8 bits (linear, per output channel) within half a step,
/// range / 510, and the range is at most twice the channel's largest
/// magnitude: a relative 1/255. To first order each of the L layers with
/// weights moves its outputs by at most that fraction r, and the changes
/// add up through the network: L * r, taken as the bound on a probability
/// (at most 1). A first-order estimate, not a worst case: a network that
/// amplifies small changes could exceed it, and the test would say so.
/// Measured (2026-12-02): age_net on face.png 4.3e-4
/// (float16) and 0.0157 (8 bits) for bounds 2.9e-3 and 0.0235; the
/// TensorFlow VGG head 1.8e-5 and 2.7e-4; the Keras classifier 1.2e-5
/// and 1.6e-3.
final class WholeModelCompressionTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples")
    let vgg = repositoryRoot.appendingPathComponent("Tests/Fixtures/tensorflow/vgg_head")
    let keras = repositoryRoot.appendingPathComponent("Tests/Fixtures/keras/sequential_classifier")

    func check(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        for (options, relativeStep) in [(["--precision", "float16"], 0x1p-11), (["--quantize-weights", "8"], 1.0 / 255)] {
            let output = try temporaryFolder().appendingPathComponent("model.mlmodel").path
            let result = try ProgramRunner.run("coreml-convert", arguments + options + ["--json", "-o", output])
            XCTAssertEqual(result.status, 0, result.standardError, file: file, line: line)
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], file: file, line: line)
            let layers = try XCTUnwrap(document["layers"] as? [[String: Any]], file: file, line: line)
            let weighted = layers.filter { ($0["parameters"] as? Int ?? 0) > 0 }.count
            let fidelity = try XCTUnwrap(document["fidelity"] as? [String: Any], file: file, line: line)
            let top = try XCTUnwrap(fidelity["topLabel"] as? [String: Any], file: file, line: line)
            XCTAssertEqual(top["agrees"] as? Bool, true, "\(options): \(top)", file: file, line: line)
            let difference = try XCTUnwrap((fidelity["outputs"] as? [[String: Any]])?.first?["maximumDifference"] as? Double, file: file, line: line)
            XCTAssertLessThanOrEqual(difference, Double(weighted) * relativeStep, "\(options), \(weighted) layers with weights", file: file, line: line)
        }
    }

    func testAgeNet() throws {
        try check(["caffe", samples.appendingPathComponent("deploy_age.prototxt").path, samples.appendingPathComponent("age_net.caffemodel").path,
                   "--image-input", "data", "--is-bgr", "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
                   "--class-labels", samples.appendingPathComponent("age_labels.txt").path, "--probe", samples.appendingPathComponent("face.png").path])
    }

    func testTensorFlowVGGHead() throws {
        try check(["tensorflow", vgg.appendingPathComponent("graph.pb").path, "--input-shape", "input:0=1,32,32,3", "--output-feature-name", "Identity:0",
                   "--image-input", "input:0", "--image-scale", "0.00392156862745098", "--red-bias", "-0.5", "--green-bias", "-0.5",
                   "--blue-bias", "-0.5", "--class-labels", vgg.appendingPathComponent("labels.txt").path])
    }

    func testKerasClassifier() throws {
        try check(["keras", keras.appendingPathComponent("model.h5").path, "--class-labels", keras.appendingPathComponent("labels.txt").path])
    }
}
