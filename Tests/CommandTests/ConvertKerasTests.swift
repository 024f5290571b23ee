import Foundation
import TestSupport
import XCTest

/// `convert keras` and its bad inputs.
final class ConvertKerasTests: XCTestCase {
    let keras = repositoryRoot.appendingPathComponent("Tests/Fixtures/keras")

    func testTheSequentialClassifierConvertsWithItsLabels() throws {
        let folder = keras.appendingPathComponent("sequential_classifier")
        let output = try temporaryFolder().appendingPathComponent("Keras.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["keras", folder.appendingPathComponent("model.h5").path, "--image-input", "image",
                                                      "--image-scale", "0.00392156862745098",
                                                      "--class-labels", folder.appendingPathComponent("labels.txt").path, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("image: image<RGB,32x32>"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("Labels:       4 (cat, dog, bird, fish)"), result.standardOutput)
    }

    func testBadInputsAreOneLineAndWriteNothing() throws {
        let folder = try temporaryFolder()
        let text = folder.appendingPathComponent("model.h5")
        try Data("not hdf5".utf8).write(to: text)
        let cases: [(String, String, String)] = [
            ("not HDF5", text.path, "model.h5"),
            ("no model config", repositoryRoot.appendingPathComponent("Tests/Fixtures/hdf5/caffe.h5").path, "no model_config attribute"),
            ("Lambda", keras.appendingPathComponent("lambda_layer/model.h5").path, "(Lambda): a Lambda layer holds Python code"),
            ("config and weights disagree", keras.appendingPathComponent("config_mismatch/model.h5").path,
             "the config says units 7, but the stored weights have shape [16, 5]"),
        ]
        for (what, model, fragment) in cases {
            let output = folder.appendingPathComponent("\(what).mlmodel").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: output))
            let result = try ProgramRunner.run("coreml-convert", ["keras", model, "-o", output])
            XCTAssertEqual(result.status, 1, "\(what): \(result.standardError)")
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "\(what): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(fragment), "\(what): \(result.standardError)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data("old".utf8), "\(what): output touched")
        }
    }
}

/// `inspect` tells Keras models from Caffe HDF5 weights by the model_config attribute.
final class InspectKerasTests: XCTestCase {
    func testKerasModelsAreSummarisedAsTheyConvert() throws {
        let result = try ProgramRunner.run("coreml-inspect", [repositoryRoot.appendingPathComponent("Tests/Fixtures/keras/functional_keras2/model.h5").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.hasPrefix("Format:       Keras model (HDF5)\n"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("input: multiarray<double,[3,16,16]>"), result.standardOutput)
    }
}
