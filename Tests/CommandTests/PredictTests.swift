import Foundation
import TestSupport
import XCTest

/// `predict` as a user runs it, on models coremltools wrote
/// (Tests/Fixtures/runtime) with references from numpy and OpenCV dnn.
final class PredictTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/runtime")

    func testClassifierPrintsTheReferenceTopLabelAndProbabilities() throws {
        let folder = fixtures.appendingPathComponent("classifier")
        let result = try ProgramRunner.run("coreml-predict", [folder.appendingPathComponent("model.mlmodel").path,
                                                      "--input", "x=" + folder.appendingPathComponent("input_x.npy").path, "--json"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        let expected = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: folder.appendingPathComponent("expected.json"))) as? [String: Any])
        XCTAssertEqual(json.first?["classLabel"] as? String, expected["classLabel"] as? String)
        // The printed probabilities are numpy's, label by label.
        let reference = try readFloat32Npy(folder.appendingPathComponent("output_classLabelProbs.npy"))
        let labels = try XCTUnwrap(expected["classLabels"] as? [String])
        let results = try XCTUnwrap(json.first?["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 5)
        for entry in results {
            let label = try XCTUnwrap(entry["label"] as? String)
            let probability = try XCTUnwrap(entry["probability"] as? Double)
            let index = try XCTUnwrap(labels.firstIndex(of: label))
            XCTAssertEqual(probability, Double(reference[index]), accuracy: 1e-4, label)
        }
    }

    func testOptionsFilterTheLabels() throws {
        let folder = fixtures.appendingPathComponent("classifier")
        let base = [folder.appendingPathComponent("model.mlmodel").path, "--input", "x=" + folder.appendingPathComponent("input_x.npy").path]
        let top2 = try ProgramRunner.run("coreml-predict", base + ["--max-results", "2"])
        XCTAssertEqual(top2.standardOutput.split(separator: "\n").count, 3, top2.standardOutput)  // source + 2 labels
        let denied = try ProgramRunner.run("coreml-predict", base + ["--deny", "dog", "--max-results", "1"])
        XCTAssertTrue(denied.standardOutput.contains("cat") && !denied.standardOutput.contains("dog"), denied.standardOutput)
        let allowed = try ProgramRunner.run("coreml-predict", base + ["--allow", "ant,eel"])
        XCTAssertEqual(allowed.standardOutput.split(separator: "\n").count, 3, allowed.standardOutput)
        let threshold = try ProgramRunner.run("coreml-predict", base + ["--confidence-threshold", "0.2"])
        XCTAssertTrue(threshold.standardOutput.contains("dog") && !threshold.standardOutput.contains("eel"), threshold.standardOutput)
    }

    func testOutputsAsNpyMatchOpenCVOnTheCaffeChain() throws {
        let folder = fixtures.appendingPathComponent("chain_caffe")
        let out = try temporaryFolder()
        let result = try ProgramRunner.run("coreml-predict", [folder.appendingPathComponent("model.mlmodel").path,
                                                      "--input", "x=" + folder.appendingPathComponent("input_x.npy").path,
                                                      "--output-npy", out.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        let reference = try readFloat32Npy(folder.appendingPathComponent("output_prob.npy"))
        let ours = try readFloat32Npy(out.appendingPathComponent("prob.npy"))
        XCTAssertEqual(ours.count, reference.count)
        for (a, b) in zip(ours, reference) { XCTAssertLessThanOrEqual(abs(a - b), 1e-4 * max(1, abs(b))) }
    }

    /// Was: an .npy given for an image input was fed as the network's
    /// input, preprocessing skipped, with nothing said: raw pixels gave
    /// wrong numbers and exit 0. Now a note says how the values are taken.
    /// The network is the identity (a 1x1 convolution), so its output is
    /// the .npy's values as they were, the image's scale 2 and bias 1 unapplied.
    func testAnArrayForAnImageInputIsSaidToSkipThePreprocessing() throws {
        let folder = try temporaryFolder()
        let model = folder.appendingPathComponent("m.mlmodel").path
        let identity = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx/ops/normalize_identity_opset13.onnx").path
        let converted = try ProgramRunner.run("coreml-convert", ["onnx", identity, "--image-input", "input", "--image-scale", "2",
                                                                 "--red-bias", "1", "-o", model, "-q"])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let values = (0..<105).map { Float($0) / 10 }
        let input = folder.appendingPathComponent("x.npy")
        try writeFloat32NpyForTest(values, shape: [3, 5, 7], to: input)
        let out = folder.appendingPathComponent("out")
        let result = try ProgramRunner.run("coreml-predict", [model, "--input", "input=" + input.path, "--output-npy", out.path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "note: input 'input' is an image: the .npy values are taken as the network's input "
                       + "after the image's preprocessing (scale and biases are not applied)\n")
        XCTAssertEqual(try readFloat32Npy(out.appendingPathComponent("output.npy")), values)

        // An array input: nothing to say.
        let classifier = fixtures.appendingPathComponent("classifier")
        let array = try ProgramRunner.run("coreml-predict", [classifier.appendingPathComponent("model.mlmodel").path,
                                                             "--input", "x=" + classifier.appendingPathComponent("input_x.npy").path])
        XCTAssertEqual(array.status, 0, array.standardError)
        XCTAssertEqual(array.standardError, "")
    }

    func testBadInputsAreOneLineWithExitOne() throws {
        let folder = try temporaryFolder()
        let classifier = fixtures.appendingPathComponent("classifier/model.mlmodel").path
        let notAnImage = folder.appendingPathComponent("photo.jpg")
        try Data("not an image".utf8).write(to: notAnImage)
        // A layer whose type (oneHot, field 1450) the toolkit does not know.
        let unknownLayer = folder.appendingPathComponent("unknown.mlmodel")
        let layer: [UInt8] = [0x0A, 0x01, 0x6C] + [0x12, 0x01, 0x78] + [0x1A, 0x01, 0x79] + [0xD2, 0x5A, 0x00]
        let image: [UInt8] = [0x22, 0x06, 0x08, 0x04, 0x10, 0x04, 0x18, 0x14]
        let input: [UInt8] = [0x0A, 0x01, 0x78, 0x1A, UInt8(image.count)] + image
        let description: [UInt8] = [0x12, UInt8(input.count + 2), 0x0A, UInt8(input.count)] + input
        let network: [UInt8] = [0xA2, 0x1F, UInt8(layer.count + 2), 0x0A, UInt8(layer.count)] + layer
        try Data([0x08, 0x01] + description + network).write(to: unknownLayer)

        let cases: [([String], String)] = [
            ([classifier, "--input", "x=" + fixtures.appendingPathComponent("split/input_x.npy").path], "does not fit input 'x'"),
            ([classifier, "--input", "x=" + folder.appendingPathComponent("missing.npy").path], "missing.npy"),
            ([fixtures.appendingPathComponent("image_scaler_rgb/model.mlmodel").path, notAnImage.path], "photo.jpg: not a PNG or JPEG image"),
            ([unknownLayer.path, "--input", "x=" + fixtures.appendingPathComponent("classifier/input_x.npy").path],
             "layer 'l' has a layer type this toolkit does not support"),
        ]
        // A name the model does not have is a command-line mistake, as in convert (exit 64).
        try ProgramRunner.assertOneError("coreml-predict", [classifier, "--input", "y=" + fixtures.appendingPathComponent("classifier/input_x.npy").path],
                                         "--input 'y': the model has no input of that name (its inputs: x); did you mean 'x'?", status: 64)
        for (arguments, fragment) in cases {
            let result = try ProgramRunner.run("coreml-predict", arguments)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.standardError)")
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains(fragment), result.standardError)
        }
    }
}

/// The values of a little-endian float32 .npy file (header parsed here,
/// independently of the runtime's reader).
func readFloat32Npy(_ url: URL) throws -> [Float] {
    let data = try Data(contentsOf: url)
    let headerLength = Int(data[8]) | Int(data[9]) << 8
    let header = String(decoding: data[10..<10 + headerLength], as: UTF8.self)
    guard header.contains("'<f4'") else { throw CocoaError(.fileReadCorruptFile) }
    let body = data[(10 + headerLength)...]
    return body.withUnsafeBytes { raw in (0..<raw.count / 4).map { raw.loadUnaligned(fromByteOffset: 4 * $0, as: Float.self) } }
}
