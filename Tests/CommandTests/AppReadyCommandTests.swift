import Foundation
import TestSupport
import XCTest

/// Issue 32: a converted model an app can use as it is, or a clear word
/// why not (an array where an app gives a photo, logits labelled as
/// probabilities), and --help that tells the truth about --input.
final class AppReadyCommandTests: XCTestCase {
    let onnx = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx").path + "/"
    var resnet: String { onnx + "resnet_opset13/model.onnx" }
    let samples = repositoryRoot.appendingPathComponent("Samples").path + "/"

    func warnings(_ standardError: String) -> [Substring] {
        standardError.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
    }

    func labels(_ count: Int, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("labels.txt").path
        try (0..<count).map { "class \($0)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Forgetting --image-input: one warning naming the input and the flag,
    /// at conversion (ONNX and Caffe); none when it is given or with --quiet;
    /// and predict, given a photo, says to convert again with the flag.
    func testAnArrayThatCouldBeAnImageIsSaidAtConversionAndInPredict() throws {
        let folder = try temporaryFolder()
        let arrayModel = folder.appendingPathComponent("Array.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "-o", arrayModel])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        XCTAssertTrue(converted.standardOutput.contains("input: multiarray<double,[3,32,32]>"), converted.standardOutput)
        let said = warnings(converted.standardError)
        XCTAssertEqual(said.count, 1, converted.standardError)
        XCTAssertEqual(said.first, "warning: input 'input' is an array [3, 32, 32], which Vision cannot feed: add --image-input input")

        let caffe = try ProgramRunner.run("coreml-convert", ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel",
                                                             "-o", folder.appendingPathComponent("Age.mlmodel").path])
        XCTAssertEqual(caffe.status, 0, caffe.standardError)
        XCTAssertEqual(warnings(caffe.standardError).count, 1, caffe.standardError)
        XCTAssertTrue(caffe.standardError.contains("input 'data' is an array [3, 227, 227], which Vision cannot feed: add --image-input data"),
                      caffe.standardError)

        let image = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--image-input", "input", "-o",
                                                             folder.appendingPathComponent("Image.mlmodel").path])
        XCTAssertEqual(image.status, 0, image.standardError)
        XCTAssertEqual(image.standardError, "")
        let quiet = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--quiet", "-o", folder.appendingPathComponent("Quiet.mlmodel").path])
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        XCTAssertEqual(quiet.standardError, "")

        try ProgramRunner.assertOneError("coreml-predict", [arrayModel, samples + "face.png"],
                                         "input 'input' is an array [3, 32, 32], not an image: convert again with --image-input input, "
                                         + "or give --input input=file.npy")
        // A vector is no picture: no word of --image-input, at conversion or in predict.
        let vector = folder.appendingPathComponent("Vector.mlmodel").path
        let vectorRun = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "ops/softmax_vector_opset13.onnx", "-o", vector])
        XCTAssertEqual(vectorRun.status, 0, vectorRun.standardError)
        XCTAssertEqual(vectorRun.standardError, "")
        let vectorPredict = try ProgramRunner.run("coreml-predict", [vector, samples + "face.png"])
        XCTAssertNotEqual(vectorPredict.status, 0)
        XCTAssertFalse(vectorPredict.standardError.contains("--image-input"), vectorPredict.standardError)
    }

    /// --class-labels on a graph that ends in Gemm: one warning that the
    /// probabilities are logits, naming --add-softmax; with it, the
    /// classifier's probabilities are the softmax of onnxruntime's logits.
    func testLogitsAreSaidAndAddSoftmaxMakesThemProbabilities() throws {
        let folder = try temporaryFolder()
        let labels = try labels(10, in: folder)
        let logits = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--image-input", "input", "--class-labels", labels,
                                                              "-o", folder.appendingPathComponent("Logits.mlmodel").path])
        XCTAssertEqual(logits.status, 0, logits.standardError)
        XCTAssertEqual(warnings(logits.standardError).count, 1, logits.standardError)
        XCTAssertEqual(warnings(logits.standardError), ["warning: classLabelProbs holds logits ('output' is innerProduct, not a softmax): add --add-softmax"])

        let model = folder.appendingPathComponent("Probabilities.mlmodel").path
        let added = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--class-labels", labels, "--add-softmax", "-o", model])
        XCTAssertEqual(added.status, 0, added.standardError)
        XCTAssertFalse(added.standardError.contains("logits"), added.standardError)
        XCTAssertTrue(added.standardOutput.contains("softmax 1"), added.standardOutput)
        let outputs = folder.appendingPathComponent("out")
        let predicted = try ProgramRunner.run("coreml-predict", [model, "--input", "input=" + onnx + "resnet_opset13/input.npy",
                                                                "--output-npy", outputs.path])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        let ours = try readFloat32Npy(outputs.appendingPathComponent("classLabelProbs.npy"))
        // onnxruntime's logits on the same input; their softmax as numpy computes it: exp(x - max) / sum.
        let reference = try readFloat32Npy(URL(fileURLWithPath: onnx + "resnet_opset13/output.npy")).map(Double.init)
        let exps = reference.map { exp($0 - reference.max()!) }
        let softmax = exps.map { $0 / exps.reduce(0, +) }
        XCTAssertEqual(ours.count, 10)
        XCTAssertEqual(Double(ours.reduce(0, +)), 1, accuracy: 1e-5)
        for (value, expected) in zip(ours, softmax) { XCTAssertEqual(Double(value), expected, accuracy: 1e-4 * max(1, expected)) }

        // A vision transformer ends in MatMul on Core ML's rank-N layers: the softmax is along its last axis.
        let vit = folder.appendingPathComponent("ViT.mlmodel").path
        let vitLogits = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "--class-labels", labels, "-o", vit])
        // Left a tensor (this test feeds it an array), the ViT's input is also said to be a picture Vision cannot feed.
        let vitPicture: Substring = "warning: input 'input' is an array [1, 3, 32, 32], which Vision cannot feed: add --image-input input"
        XCTAssertEqual(warnings(vitLogits.standardError), [vitPicture, "warning: classLabelProbs holds logits ('output' is matmul, not a softmax): add --add-softmax"])
        let vitAdded = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "--class-labels", labels, "--add-softmax", "-o", vit])
        XCTAssertEqual(vitAdded.status, 0, vitAdded.standardError)
        XCTAssertEqual(vitAdded.standardError, vitPicture + "\n")
        let vitOutputs = folder.appendingPathComponent("vit")
        let vitRun = try ProgramRunner.run("coreml-predict", [vit, "--input", "input=" + onnx + "vit_opset14/input.npy", "--output-npy", vitOutputs.path])
        XCTAssertEqual(vitRun.status, 0, vitRun.standardError)
        let vitOurs = try readFloat32Npy(vitOutputs.appendingPathComponent("classLabelProbs.npy"))
        let vitReference = try readFloat32Npy(URL(fileURLWithPath: onnx + "vit_opset14/output.npy")).map(Double.init)
        let vitExps = vitReference.map { exp($0 - vitReference.max()!) }
        XCTAssertEqual(vitOurs.count, 10)
        for (value, expected) in zip(vitOurs, vitExps.map { $0 / vitExps.reduce(0, +) }) {
            XCTAssertEqual(Double(value), expected, accuracy: 1e-4 * max(1, expected))
        }

        // A softmax on a softmax, or without labels: refused.
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel",
                                                            "--class-labels", samples + "age_labels.txt", "--add-softmax",
                                                            "-o", folder.appendingPathComponent("Twice.mlmodel").path],
                                         "--add-softmax: the last layer 'prob' gives probabilities already")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--add-softmax", "-o", folder.appendingPathComponent("No.mlmodel").path],
                                         "--add-softmax appends a softmax to a classifier's scores: give its labels with --class-labels", status: 64)
        // A detector's confidences are not a classifier's scores: refused, not ignored.
        let tiny = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet/tiny_yolo").path + "/"
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", tiny + "model.cfg", tiny + "model.weights", "--class-labels", try self.labels(20, in: folder),
                                                            "--add-softmax", "-o", folder.appendingPathComponent("Detector.mlmodel").path],
                                         "--add-softmax applies to a classifier's scores, and this model is a detector")
        // A model that ends in a softmax gets no word.
        let age = try ProgramRunner.run("coreml-convert", ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel",
                                                           "--image-input", "data", "--class-labels", samples + "age_labels.txt",
                                                           "-o", folder.appendingPathComponent("Age.mlmodel").path])
        XCTAssertEqual(age.status, 0, age.standardError)
        XCTAssertEqual(age.standardError, "")
    }

    /// ONNX shapes are channel-first: --help and the error say 1,C,H,W
    /// there, and 1,H,W,C for TensorFlow and Keras.
    func testInputShapeHelpFollowsEachFormatsLayout() throws {
        let help = try ProgramRunner.run("coreml-convert", ["onnx", "--help"])
        XCTAssertEqual(help.status, 0, help.standardError)
        XCTAssertTrue(help.standardOutput.contains("--input-shape <name=1,C,H,W>"), help.standardOutput)
        XCTAssertFalse(help.standardOutput.contains("1,H,W,C"), help.standardOutput)
        for format in ["tensorflow", "keras"] {
            let other = try ProgramRunner.run("coreml-convert", [format, "--help"])
            XCTAssertTrue(other.standardOutput.contains("--input-shape <name=1,H,W,C>"), other.standardOutput)
        }
        let output = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--input-shape", "input=1,3,x", "-o", output],
                                         "--input-shape takes name=1,C,H,W, got 'input=1,3,x'", status: 64)
    }

    /// torchvision's normalization: --mean and --std on 0-1 pixels give the
    /// model (pixel / 255 - mean) / std per channel, as numpy computed it by
    /// hand for a fixture image (through an identity convolution); three
    /// stds need a scale layer, which the summary states; one std does not.
    func testMeanAndStdGiveTorchvisionsNormalization() throws {
        let folder = try temporaryFolder()
        let model = onnx + "ops/normalize_identity_opset13.onnx"
        let image = repositoryRoot.appendingPathComponent("Tests/Fixtures/images/rgb.png").path
        let expected = try readFloat32Npy(URL(fileURLWithPath: onnx + "ops/normalize_rgb_expected.npy"))
        let torchvision = ["--mean", "0.485,0.456,0.406", "--std", "0.229,0.224,0.225"]
        func predicted(_ options: [String], name: String) throws -> (summary: String, values: [Float]) {
            let path = folder.appendingPathComponent(name + ".mlmodel").path
            let converted = try ProgramRunner.run("coreml-convert", ["onnx", model, "--image-input", "input", "-o", path] + options)
            XCTAssertEqual(converted.status, 0, converted.standardError)
            XCTAssertEqual(converted.standardError, "")
            let out = folder.appendingPathComponent(name)
            let run = try ProgramRunner.run("coreml-predict", [path, image, "--output-npy", out.path])
            XCTAssertEqual(run.status, 0, run.standardError)
            return (converted.standardOutput, try readFloat32Npy(out.appendingPathComponent("output.npy")))
        }
        func assertClose(_ ours: [Float], _ reference: [Double], file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertEqual(ours.count, reference.count, file: file, line: line)
            for (value, expected) in zip(ours, reference) {
                XCTAssertEqual(Double(value), expected, accuracy: 1e-4 * max(1, abs(expected)), file: file, line: line)
            }
        }
        let rgb = try predicted(torchvision, name: "RGB")
        XCTAssertTrue(rgb.summary.contains("Normalized:   scale layer input_std: 1/std per channel"), rgb.summary)
        XCTAssertTrue(rgb.summary.contains("Layers:       2 (scale 1, convolution 1)"), rgb.summary)
        assertClose(rgb.values, expected.map(Double.init))
        // BGR: the model's channels are B, G, R; the values stay given in R, G, B order.
        let bgr = try predicted(torchvision + ["--is-bgr"], name: "BGR")
        let plane = expected.count / 3
        let reversed: [Float] = [2, 1, 0].flatMap { (channel: Int) -> ArraySlice<Float> in expected[channel * plane..<(channel + 1) * plane] }
        assertClose(bgr.values, reversed.map(Double.init))
        // One std for all channels: Core ML's preprocessing alone, no layer and no note.
        let one = try predicted(["--mean", "0.485,0.456,0.406", "--std", "0.5"], name: "One")
        XCTAssertFalse(one.summary.contains("Normalized:"), one.summary)
        XCTAssertTrue(one.summary.contains("Layers:       1 (convolution 1)"), one.summary)
        let std = [0.229, 0.224, 0.225]
        let rescaled: [Double] = expected.indices.map { (index: Int) -> Double in Double(expected[index]) * std[index / plane] / 0.5 }
        assertClose(one.values, rescaled)

        let output = folder.appendingPathComponent("m.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", model, "-o", output] + torchvision,
                                         "--mean, --std apply to an image input, and none is named: add --image-input input", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", model, "--image-input", "input", "--image-scale", "2", "-o", output] + torchvision,
                                         "--mean and --std set the image's scale and biases: give them without --image-scale", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", model, "--image-input", "input", "--std", "0.2,0,0.2", "-o", output],
                                         "for '--std': takes one or three positive numbers", status: 64)
        // A subnormal std's reciprocal (the image's scale) is infinite; a huge one's 1 / (255 std) is 0 (Core ML's unset).
        for std in ["1e-40", "0.2,1e-40,0.2", "1e36"] {
            try ProgramRunner.assertOneError("coreml-convert", ["onnx", model, "--image-input", "input", "--std", std, "-o", output],
                                             "for '--std': takes one or three positive numbers", status: 64)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// A ViT's [1, 3, H, W] tensor input named by --image-input becomes a
    /// 32x32 image the network takes as that tensor (Core ML's
    /// RANK4_IMAGE_MAPPING, as coremltools writes an ImageType of a rank-4
    /// input): predict on a PNG gives what onnxruntime gives on the same
    /// pixels preprocessed by numpy (scripts/fixtures/make_vit_image_fixture.py),
    /// with torchvision's normalization (its per-channel std a multiply by a
    /// [1, 3, 1, 1] constant) and with --is-bgr, --image-scale and biases;
    /// a [1, 1, H, W] tensor becomes a grayscale image with --gray-bias.
    /// coremltools reads the file back (its expect.json).
    func testATensorImageInputBecomesAnImage() throws {
        let folder = try temporaryFolder()
        let fixtures = onnx + "image_tensor/"
        let vit = onnx + "vit_opset14/model.onnx"
        func predicted(_ model: String, _ options: [String], image: String, name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws -> (summary: String, values: [Float], path: String) {
            let path = folder.appendingPathComponent(name + ".mlmodel").path
            let converted = try ProgramRunner.run("coreml-convert", ["onnx", model, "--image-input", "input", "-o", path] + options)
            XCTAssertEqual(converted.status, 0, converted.standardError, file: file, line: line)
            XCTAssertEqual(converted.standardError, "", file: file, line: line)
            let out = folder.appendingPathComponent(name)
            let run = try ProgramRunner.run("coreml-predict", [path, image, "--output-npy", out.path])
            XCTAssertEqual(run.status, 0, run.standardError, file: file, line: line)
            return (converted.standardOutput, try readFloat32Npy(out.appendingPathComponent("output.npy")), path)
        }
        func assertClose(_ ours: [Float], _ reference: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let expected = try readFloat32Npy(URL(fileURLWithPath: fixtures + reference))
            XCTAssertEqual(ours.count, expected.count, file: file, line: line)
            XCTAssertNil(worstMismatch(ours, expected), "\(ours) vs \(expected)", file: file, line: line)
        }
        let face = fixtures + "face32.png"
        let normalized = try predicted(vit, ["--mean", "0.485,0.456,0.406", "--std", "0.229,0.224,0.225"], image: face, name: "Normalized")
        XCTAssertTrue(normalized.summary.contains("input: image<RGB,32x32>"), normalized.summary)
        XCTAssertTrue(normalized.summary.contains("preprocessing: scale 0.003921569, bias R -0.485 G -0.456 B -0.406"), normalized.summary)
        XCTAssertTrue(normalized.summary.contains("Normalized:   scale layer input_std: 1/std per channel"), normalized.summary)
        try assertClose(normalized.values, "vit_normalized.expect.npy")
        let bgr = try predicted(vit, ["--is-bgr", "--image-scale", "0.0078125", "--red-bias", "-1", "--green-bias", "-0.5", "--blue-bias", "0.25"],
                                image: face, name: "BGR")
        XCTAssertTrue(bgr.summary.contains("input: image<BGR,32x32>"), bgr.summary)
        try assertClose(bgr.values, "vit_bgr.expect.npy")
        let gray = try predicted(fixtures + "gray_flatten_opset13.onnx", ["--gray-bias", "-100"],
                                 image: repositoryRoot.appendingPathComponent("Tests/Fixtures/images/gray.png").path, name: "Gray")
        XCTAssertTrue(gray.summary.contains("input: image<Grayscale,6x4>"), gray.summary)
        try assertClose(gray.values, "gray_flatten.expect.npy")

        // coremltools: an image input on a network of exact arrays, its blob [1, 3, 32, 32], the std a broadcast multiply.
        let checked = checkDirectory.appendingPathComponent("vit_image_input.mlmodel").path
        try? FileManager.default.removeItem(atPath: checked)
        try FileManager.default.copyItem(atPath: normalized.path, toPath: checked)
        let expectation = """
            {"specificationVersion": 4, "kind": "neuralNetwork",
             "inputs": [{"name": "input", "type": "image", "width": 32, "height": 32, "colorSpace": "RGB"}],
             "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING", "imageInputShapeMapping": "RANK4_IMAGE_MAPPING",
             "preprocessing": [{"featureName": "input", "scaler": {"channelScale": 0.003921569, "redBias": -0.485, "greenBias": -0.456, "blueBias": -0.406}}],
             "layers": [{"name": "input_std_constant", "type": "loadConstantND", "params": {"shape": [1, 3, 1, 1]}},
                        {"name": "input_std", "type": "multiplyBroadcastable", "inputs": ["input", "input_std_constant"], "outputs": ["input_std"]}]}
            """
        try expectation.write(toFile: checked.replacingOccurrences(of: ".mlmodel", with: ".expect.json"), atomically: true, encoding: .utf8)
    }

    /// What is no picture stays a tensor, each with one error line naming
    /// the input and its shape as a list (no IR description): a [1, 2, H, W]
    /// tensor, a batch of two, a rank-3 sequence; color options on a
    /// grayscale tensor image, --gray-bias on a color one.
    func testATensorInputThatCannotBeAnImageSaysWhy() throws {
        let output = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        let fixtures = onnx + "image_tensor/"
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", fixtures + "two_channel_opset13.onnx", "--image-input", "input", "-o", output],
                                         "input 'input' cannot be an image: its shape [1, 2, 4, 6] is not [1, 1 or 3, H, W]")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", fixtures + "batch_opset13.onnx", "--image-input", "input", "-o", output],
                                         "input 'input' has batch 2 ([2, 3, 4, 6]); only batch 1 is supported")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", onnx + "encoder_opset14/model.onnx", "--image-input", "input", "-o", output],
                                         "input 'input' cannot be an image: its shape [1, 12, 32] is not [1, 1 or 3, H, W]")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", fixtures + "gray_flatten_opset13.onnx", "--image-input", "input", "--is-bgr",
                                                            "-o", output],
                                         "input 'input' has one channel (a grayscale image): --is-bgr do not apply to it; its bias is --gray-bias",
                                         status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "--image-input", "input", "--gray-bias", "-1",
                                                            "-o", output],
                                         "input 'input' has three channels (a color image): --gray-bias does not apply to it", status: 64)
        // Preprocessing options without --image-input name the tensor input as the one to give.
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "--is-bgr", "-o", output],
                                         "--is-bgr applies to an image input, and none is named: add --image-input input", status: 64)
        for model in ["vit_opset14", "encoder_opset14"] {
            let result = try ProgramRunner.run("coreml-convert", ["onnx", onnx + model + "/model.onnx", "--image-input", "input", "--is-bgr",
                                                                   "--mean", "0.5", "--std", "0.2,0.3", "-o", output])
            XCTAssertFalse(result.standardError.contains("tensor(shape"), result.standardError)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    /// The ViT converted without --image-input: a warning names the input
    /// and the flag (as for a [C, H, W] array), none with --quiet; predict
    /// given a photo says to convert again with --image-input. The
    /// encoder's [1, 12, 32] sequence is no picture: no warning.
    func testATensorPictureLeftAsATensorIsSaid() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("Tensor.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "-o", output])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        XCTAssertEqual(warnings(converted.standardError),
                       ["warning: input 'input' is an array [1, 3, 32, 32], which Vision cannot feed: add --image-input input"])
        let quiet = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "vit_opset14/model.onnx", "-q", "-o", folder.appendingPathComponent("Q.mlmodel").path])
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        XCTAssertEqual(quiet.standardError, "")
        let encoder = try ProgramRunner.run("coreml-convert", ["onnx", onnx + "encoder_opset14/model.onnx", "-o", folder.appendingPathComponent("E.mlmodel").path])
        XCTAssertEqual(encoder.status, 0, encoder.standardError)
        XCTAssertEqual(encoder.standardError, "")
        try ProgramRunner.assertOneError("coreml-predict", [output, samples + "face.png"],
                                         "input 'input' is a [1, 3, 32, 32] tensor, not an image: convert again with --image-input input, "
                                         + "or give --input input=file.npy")
    }
}
