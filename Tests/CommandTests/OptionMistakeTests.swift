import Foundation
import TestSupport
import XCTest

/// A careless user's small mistakes are errors, never a model that is not
/// what they asked for: preprocessing options with no image input to apply
/// to (the model came out with an array input), names the model does not
/// have (an --input-shape for a missing placeholder was ignored), NaN or infinite
/// numbers, biases for channels the image does not have, classifier options
/// without labels. Usage mistakes exit 64 with one error line and a hint naming --help.
final class OptionMistakeTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples")
    let mobilenet = repositoryRoot.appendingPathComponent("Tests/Fixtures/tensorflow/mobilenet_block/graph.pb").path

    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    /// Runs `convert`, which must exit with `status` and one `error:` line
    /// containing `fragment`, and write nothing.
    func assertMistake(_ arguments: [String], _ fragment: String, status: Int32 = 64,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("out.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", arguments + ["-o", output], file: file, line: line)
        XCTAssertEqual(result.status, status, result.standardError, file: file, line: line)
        let errors = result.standardError.split(separator: "\n").filter { $0.hasPrefix("error: ") }
        XCTAssertEqual(errors.count, 1, result.standardError, file: file, line: line)
        XCTAssertTrue(result.standardError.contains(fragment), "'\(fragment)' not in: \(result.standardError)", file: file, line: line)
        if status == 64 { XCTAssertTrue(result.standardError.contains("see 'coreml-convert"), result.standardError, file: file, line: line) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing written", file: file, line: line)
    }

    func caffe(_ extra: [String]) -> [String] {
        ["caffe", sample("deploy_age.prototxt"), sample("age_net.caffemodel")] + extra
    }

    func testPreprocessingWithoutAnImageInputIsAUsageError() throws {
        try assertMistake(caffe(["--is-bgr", "--red-bias", "-114"]),
                          "--is-bgr, --red-bias apply to an image input, and none is named: add --image-input data")
        try assertMistake(caffe(["--image-scale", "2/255"]), "--image-scale applies to an image input")
        try assertMistake(["tensorflow", mobilenet, "--blue-bias", "1"], "add --image-input input")
        try assertMistake(["keras", repositoryRoot.appendingPathComponent("Tests/Fixtures/keras/functional_separable/model.h5").path,
                           "--gray-bias", "3"], "--gray-bias applies to an image input")
    }

    func testNamesTheModelDoesNotHaveAreErrorsWithSuggestions() throws {
        try assertMistake(caffe(["--image-input", "dta"]), "--image-input 'dta' is not an input of the model (its inputs: data); did you mean 'data'?")
        try assertMistake(["tensorflow", mobilenet, "--input-shape", "images=1,33,33,3"],
                          "--input-shape 'images': the graph has no placeholder of that name (its placeholders: input)")
        try assertMistake(["tensorflow", mobilenet, "--input-shape", "inptu=1,33,33,3"], "did you mean 'input'?")
        try assertMistake(["tensorflow", mobilenet, "--output-feature-name", "MobilenetV1/Logits/SpatialSqeeze"],
                          "did you mean 'MobilenetV1/Logits/SpatialSqueeze'?")
        try assertMistake(["tensorflow", mobilenet, "--image-input", "inputs"], "did you mean 'input'?")
    }

    func testNonFiniteNumbersAreRefusedAndFractionsTaken() throws {
        try assertMistake(caffe(["--image-input", "data", "--red-bias", "nan"]), "invalid value 'nan' for '--red-bias'")
        try assertMistake(caffe(["--image-input", "data", "--image-scale", "inf"]), "invalid value 'inf' for '--image-scale'")
        try assertMistake(caffe(["--image-input", "data", "--green-bias", "-1e39"]), "invalid value '-1e39' for '--green-bias'")
        let output = try temporaryFolder().appendingPathComponent("scaled.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", caffe(["--image-input", "data", "--image-scale", "2/255", "-o", output]))
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardOutput.contains("preprocessing: scale 0.007843138"), result.standardOutput)
    }

    /// --is-bgr and the red/green/blue biases on a one-channel image, and
    /// --gray-bias on a three-channel one, would be dropped: refused.
    func testBiasesForChannelsTheImageDoesNotHaveAreRefused() throws {
        let folder = try temporaryFolder()
        let deploy = folder.appendingPathComponent("gray.prototxt")
        try "input: \"data\"\ninput_shape { dim: 1 dim: 1 dim: 8 dim: 8 }\nlayer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n"
            .write(to: deploy, atomically: false, encoding: .utf8)
        let weights = folder.appendingPathComponent("w.caffemodel")
        try Data([0xA2, 0x06, 0x03, 0x0A, 0x01, 0x78]).write(to: weights)  // one unrelated layer
        let gray = ["caffe", deploy.path, weights.path, "--image-input", "data"]
        try assertMistake(gray + ["--is-bgr"], "input 'data' has one channel (a grayscale image): --is-bgr do not apply to it")
        try assertMistake(gray + ["--red-bias", "1", "--blue-bias", "2"], "--red-bias, --blue-bias do not apply to it; its bias is --gray-bias")
        try assertMistake(caffe(["--image-input", "data", "--gray-bias", "-100"]),
                          "input 'data' has three channels (a color image): --gray-bias does not apply to it")
        let output = folder.appendingPathComponent("gray.mlmodel").path
        let fine = try ProgramRunner.run("coreml-convert", gray + ["--gray-bias", "-0.5", "--image-scale", "1/255", "-o", output])
        XCTAssertEqual(fine.status, 0, fine.standardError)
        XCTAssertTrue(fine.standardOutput.contains("image<Grayscale,8x8>"), fine.standardOutput)
    }

    func testAnUnknownDeploymentTargetIsAUsageError() throws {
        try assertMistake(caffe(["--minimum-deployment-target", "iOS31"]), "--minimum-deployment-target 'iOS31' is not one of iOS11")
        try assertMistake(caffe(["--minimum-deployment-target", ""]), "--minimum-deployment-target '' is not one of iOS11")
        try assertMistake(caffe(["--minimum-deployment-target", "iOS-13"]), "did you mean iOS13?")
    }

    func testClassifierNamesMustFit() throws {
        try assertMistake(caffe(["--predicted-feature-name", "age"]), "--predicted-feature-name names the label output of a classifier")
        let labels = sample("age_labels.txt")
        try assertMistake(caffe(["--class-labels", labels, "--predicted-feature-name", "data"]),
                          "must not be named like an input", status: 1)
        try assertMistake(caffe(["--class-labels", labels, "--predicted-feature-name", "classLabelProbs"]),
                          "the classifier's label and probabilities features are both named 'classLabelProbs'", status: 1)
    }

    /// One spelling per idea across the four programs (issue 32): each old
    /// one is a usage error naming the new one, one error line and the
    /// hint, never taken silently (`--input` was a shape in convert and a
    /// file in predict, `--score-threshold` and `--confidence-threshold`
    /// one threshold, `--generate-classes swift` and generate's
    /// `--language swift` one choice, inspect's `--weights` a flag and a
    /// file, caffe's `--mean` a file where onnx's is numbers).
    /// --confidence-threshold on a model with neither labels nor boxes was
    /// taken and did nothing: refused, saying what it applies to.
    func testAThresholdForAModelWithoutLabelsOrBoxesIsRefused() throws {
        let folder = try temporaryFolder()
        let plain = folder.appendingPathComponent("Plain.mlmodel").path
        let samples = repositoryRoot.appendingPathComponent("Samples").path + "/"
        let converted = try ProgramRunner.run("coreml-convert", ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel",
                                                                 "--image-input", "data", "-q", "-o", plain])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        try ProgramRunner.assertOneError("coreml-predict", [plain, samples + "face.png", "--confidence-threshold", "0.5"],
                                         "--confidence-threshold applies to a classifier's labels or a detector's boxes, and this model is neither",
                                         status: 64)
    }

    func testFormerSpellingsSayTheNewOne() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("out.mlmodel").path
        let onnx = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx/resnet_opset13/model.onnx").path
        let classifier = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml/builder_classifier.mlmodel").path
        let cases: [(String, [String], String, String)] = [
            ("coreml-convert", ["onnx", onnx, "--input", "input=1,3,32,32", "-o", output], "'--input' is now '--input-shape'", "coreml-convert onnx"),
            ("coreml-convert", ["tensorflow", mobilenet, "--input=input:0=1,33,33,3", "-o", output], "'--input' is now '--input-shape'",
             "coreml-convert tensorflow"),
            ("coreml-convert", ["sample", "-o", output, "--generate-classes", "swift"],
             "'--generate-classes swift' is now '--generate-classes --language swift'", "coreml-convert sample"),
            ("coreml-convert", ["sample", "--generate-classes=objc", "-o", output],
             "'--generate-classes objc' is now '--generate-classes --language objc'", "coreml-convert sample"),
            ("coreml-convert", caffe(["--image-input", "data", "--mean", sample("face.png"), "-o", output]), "'--mean' is now '--mean-image'",
             "coreml-convert caffe"),
            ("coreml-predict", [classifier, "--score-threshold", "0.5"], "'--score-threshold' is now '--confidence-threshold'", "coreml-predict"),
            ("coreml-inspect", [sample("deploy_age.prototxt"), "--weights-file", sample("age_net.caffemodel")],
             "'--weights-file' is now '--weights'", "coreml-inspect"),
            ("coreml-inspect", [classifier, "--weights"],
             "'--weights' is now '--weight-stats' (the weight tensor table); --weights FILE names a Caffe prototxt's weights", "coreml-inspect"),
            ("coreml-inspect", ["--weights", classifier, "--layers"],
             "'--weights' is now '--weight-stats' (the weight tensor table); --weights FILE names a Caffe prototxt's weights, "
                + "and \(classifier) is a Core ML model", "coreml-inspect"),
        ]
        for (program, arguments, message, command) in cases {
            let result = try ProgramRunner.run(program, arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.standardError)")
            XCTAssertEqual(result.standardOutput, "", "\(arguments)")
            XCTAssertEqual(result.standardError, "error: \(message)\nsee '\(command) --help' for its usage\n", "\(arguments)")
        }
        // The language alone says nothing to convert: it is the language of --generate-classes.
        try assertMistake(["sample", "--language", "objc"], "--language is the language of the typed classes --generate-classes writes")
        try assertMistake(["sample", "--generate-classes", "--language", "java"], "--language takes swift or objc, not 'java'")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "nothing written")
    }
}
