import Foundation
import TestSupport
import XCTest

/// The way in, as a new user meets it: one grammar for the three
/// converters (and did-you-means for coremltools' and old spellings),
/// files recognised by content, the Caffe pair in either order, the
/// systems a file loads on, predict fitting images as Vision does.
final class FrontDoorTests: XCTestCase {
    let root = repositoryRoot.path + "/"
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures").path + "/"
    var deploy: String { root + "Samples/deploy_age.prototxt" }
    var weights: String { root + "Samples/age_net.caffemodel" }
    var face: String { root + "Samples/face.png" }
    var mobilenet: String { fixtures + "tensorflow/mobilenet_block/graph.pb" }
    var keras: String { fixtures + "keras/sequential_classifier/model.h5" }

    func testOneSpellingOfTheOutputFileInEveryConverter() throws {
        let folder = try temporaryFolder()
        for (index, arguments) in [["caffe", deploy, weights], ["tensorflow", mobilenet], ["keras", keras], ["sample"]].enumerated() {
            for spelling in ["-o", "--output"] {
                let output = folder.appendingPathComponent("\(index)\(spelling).mlmodel").path
                let result = try ProgramRunner.run("coreml-convert", arguments + [spelling, output])
                XCTAssertEqual(result.status, 0, "\(arguments) \(spelling): \(result.standardError)")
                XCTAssertTrue(FileManager.default.fileExists(atPath: output), "\(arguments) \(spelling)")
            }
        }
        let output = folder.appendingPathComponent("old.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", mobilenet, "--output-file", output],
                        "unknown option '--output-file'; did you mean '--output'?", status: 64)
        // The old tensor option: now the output file, which a tensor name is not.
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", mobilenet, "--output", "MobilenetV1/Logits/SpatialSqueeze"],
                        "a Core ML model file's name ends in .mlmodel (Xcode goes by it); to make a tensor an output of the model, "
                        + "use --output-feature-name MobilenetV1/Logits/SpatialSqueeze", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", mobilenet, "--output", "softmax", "-o", output],
                        "'--output' given twice ('softmax', then '\(output)')", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", mobilenet, "--output_feature_names", "x", "-o", output],
                        "did you mean '--output-feature-name'?", status: 64)
        let tensor = try ProgramRunner.run("coreml-convert", ["tensorflow", mobilenet, "--output-feature-name",
                                                              "MobilenetV1/Logits/SpatialSqueeze", "-o", output])
        XCTAssertEqual(tensor.status, 0, tensor.standardError)
        XCTAssertTrue(tensor.standardOutput.contains("MobilenetV1_Logits_SpatialSqueeze:"), tensor.standardOutput)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("old") }, ["old.mlmodel"])
    }

    func testCoremltoolsParameterNamesGetOurs() throws {
        let output = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        for (typed, ours) in [("--image_input_names", "--image-input"), ("--is_bgr", "--is-bgr"), ("--class_labels", "--class-labels"),
                              ("--red_bias", "--red-bias"), ("--image_scale", "--image-scale"),
                              ("--predicted_feature_name", "--predicted-feature-name"),
                              ("--minimum_deployment_target", "--minimum-deployment-target")] {
            try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, weights, typed, "x", "-o", output],
                            "unknown option '\(typed)'; did you mean '\(ours)'?", status: 64)
        }
        for typed in ["--input_name_shape_dict", "--inputs"] {
            try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", mobilenet, typed, "x", "-o", output],
                                             "did you mean '--input-shape'?", status: 64)
        }
        for (typed, ours) in [("--model_precision", "--precision"), ("--compute_precision", "--compute-precision")] {
            try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, weights, typed, "float16", "-o", output],
                                             "unknown option '\(typed)'; did you mean '\(ours)'?", status: 64)
        }
        try ProgramRunner.assertOneError("coreml-predict", [root + "Samples/face.png", "--center-crop"], "did you mean '--crop-and-scale'?", status: 64)
    }

    func testJSONAndQuiet() throws {
        let folder = try temporaryFolder()
        let json = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--json", "-o", folder.path + "/a.mlmodel"])
        XCTAssertEqual(json.status, 0, json.standardError)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        XCTAssertEqual(object["file"] as? String, folder.path + "/a.mlmodel")
        XCTAssertEqual((object["format"] as? [String: Any])?["version"] as? Int, 1)
        XCTAssertEqual((object["deployment"] as? [String: Any])?["systems"] as? [String], ["iOS 11", "macOS 10.13", "tvOS 11", "watchOS 4"])
        XCTAssertEqual(object["layerCount"] as? Int, 18)
        let quiet = try ProgramRunner.run("coreml-convert", ["sample", "-q", "-o", folder.path + "/b.mlmodel"])
        XCTAssertEqual(quiet.status, 0, quiet.standardError)
        XCTAssertEqual(quiet.standardOutput + quiet.standardError, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path + "/b.mlmodel"))
        try ProgramRunner.assertOneError("coreml-convert", ["sample", "--json", "--quiet", "-o", folder.path + "/c.mlmodel"], "choose one", status: 64)
    }

    func testTheCaffePairInEitherOrder() throws {
        let folder = try temporaryFolder()
        let options = ["--image-input", "data", "--is-bgr", "--class-labels", root + "Samples/age_labels.txt"]
        let first = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights] + options + ["-o", folder.path + "/1.mlmodel"])
        let second = try ProgramRunner.run("coreml-convert", ["caffe", weights, deploy] + options + ["-o", folder.path + "/2.mlmodel"])
        XCTAssertEqual(first.status, 0, first.standardError)
        XCTAssertEqual(second.status, 0, second.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: folder.path + "/1.mlmodel")),
                       try Data(contentsOf: URL(fileURLWithPath: folder.path + "/2.mlmodel")))
        let output = folder.path + "/3.mlmodel"
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, deploy, "-o", output],
                        "deploy_age.prototxt: is a Caffe deploy definition (prototxt), not Caffe weights (.caffemodel or .caffemodel.h5)")
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", face, weights, "-o", output], "face.png: is a PNG image, not a Caffe deploy definition")
    }

    /// A file of another kind says what it is and which program takes it.
    func testFilesAreRecognisedByContent() throws {
        let folder = try temporaryFolder()
        let output = folder.path + "/m.mlmodel"
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", keras, "-o", output],
                        "model.h5: is an HDF5 file (a Keras .h5 model, or Caffe .caffemodel.h5 weights), not a TensorFlow graph: "
                        + "convert a Keras model with coreml-convert keras")
        try ProgramRunner.assertOneError("coreml-convert", ["keras", mobilenet, "-o", output],
                        "graph.pb: is a TensorFlow graph, not a Keras model (.h5): convert it with coreml-convert tensorflow")
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", deploy, "-o", output],
                        "deploy_age.prototxt: is a Caffe deploy definition (prototxt), not a TensorFlow graph")
        try ProgramRunner.assertOneError("coreml-predict", [mobilenet, face],
                        "graph.pb: is a TensorFlow graph, not a Core ML model: convert it with coreml-convert tensorflow")
        try ProgramRunner.assertOneError("coreml-predict", [face], "face.png: is a PNG image, not a Core ML model")
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, weights, "--image-input", "data", "--mean-image", face, "-o", output],
                        "face.png: is a PNG image, not a Caffe mean image (mean.binaryproto)")
        try ProgramRunner.assertOneError("coreml-inspect", [face], "face.png: a PNG image, not a model file")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    func testAnMLPackageWithoutConvertToIsRefusedAndNothingWritten() throws {
        let folder = try temporaryFolder()
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, weights, "-o", folder.path + "/AgeNet.mlpackage"],
                        "an .mlpackage folder holds an ML program: add --convert-to mlprogram", status: 64)
        // The output's name is a usage mistake found before any input is read.
        try ProgramRunner.assertOneError("coreml-convert", ["caffe", deploy, deploy, "-o", deploy],
                                         "--output \(deploy): a Core ML model file's name ends in .mlmodel", status: 64)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [])
    }

    /// A deploy definition alone: the structure, shapes and parameter
    /// counts it has with its weights, and a note that they were not given.
    func testADeployDefinitionAloneShowsItsStructure() throws {
        for name in ["age_net_v1", "resnet_bn", "layers_v2"] {
            let folder = fixtures + "caffe/\(name)/"
            let alone = try ProgramRunner.run("coreml-inspect", [folder + "deploy.prototxt", "--layers"])
            let paired = try ProgramRunner.run("coreml-inspect", [folder + "deploy.prototxt", folder + "weights.caffemodel", "--layers"])
            XCTAssertEqual(alone.status, 0, alone.standardError)
            XCTAssertEqual(paired.status, 0, paired.standardError)
            let weightsNote = alone.standardOutput.split(separator: "\n").filter { $0.hasPrefix("Weights:") }
            XCTAssertEqual(weightsNote.count, 1, alone.standardOutput)
            XCTAssertTrue(weightsNote.first?.contains("not given") == true)
            // The note, and the lines it wraps onto (a long path), are all that differs.
            var inNote = false
            let withoutNote = alone.standardOutput.split(separator: "\n").filter { line in
                inNote = line.hasPrefix("Weights:") || (inNote && line.hasPrefix("              ") && !line.hasPrefix("               "))
                return !inNote
            }
            XCTAssertEqual(withoutNote, paired.standardOutput.split(separator: "\n"), name)
        }
    }

    /// The summary and inspect say which systems load a file and which layers need that.
    func testTheSystemsAFileLoadsOnAndWhy() throws {
        let folder = try temporaryFolder()
        let lowest = try ProgramRunner.run("coreml-convert", ["tensorflow", mobilenet, "-o", folder.path + "/1.mlmodel"])
        XCTAssertEqual(lowest.status, 0, lowest.standardError)
        XCTAssertTrue(lowest.standardOutput.contains("Loads on:     iOS 11, macOS 10.13, tvOS 11, watchOS 4\n"), lowest.standardOutput)
        let raised = try ProgramRunner.run("coreml-convert", ["tensorflow", mobilenet, "--minimum-deployment-target", "iOS13",
                                                              "-o", folder.path + "/4.mlmodel"])
        XCTAssertEqual(raised.status, 0, raised.standardError)
        // The kinds of layer that need the version, counted (not each layer named), on a line of their own.
        let line = "Loads on:     iOS 13, macOS 10.15, tvOS 13, watchOS 6\n              (specification 4 for its 5 clip layers)\n"
        XCTAssertTrue(raised.standardOutput.contains(line), raised.standardOutput)
        let inspected = try ProgramRunner.run("coreml-inspect", [folder.path + "/4.mlmodel"])
        XCTAssertTrue(inspected.standardOutput.contains(line), inspected.standardOutput + inspected.standardError)
        let sample = try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--minimum-deployment-target", "macOS10_15",
                                                              "-o", folder.path + "/s.mlmodel"])
        XCTAssertTrue(sample.standardOutput.contains("(specification 4 as written; its layers need no more than 1)"), sample.standardOutput)
    }

    func testInspectShowsOutputDescriptions() throws {
        let output = try temporaryFolder().path + "/s.mlmodel"
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", output]).status, 0)
        let inspected = try ProgramRunner.run("coreml-inspect", [output])
        XCTAssertTrue(inspected.standardOutput.contains("  classLabelProbs: dictionary<string,double>\n    description: Probability of each class label\n"),
                      inspected.standardOutput)
        XCTAssertTrue(inspected.standardOutput.contains("  classLabel: string\n    description: Most likely class label\n"),
                      inspected.standardOutput)
    }

    /// A JPEG's EXIF orientation is applied (as OpenCV's imread), and the images line says so;
    /// --ignore-exif-orientation reads the pixels as stored (Vision given .up).
    func testPredictAppliesExifOrientationAndSaysSo() throws {
        let model = try temporaryFolder().path + "/AgeNet.mlmodel"
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--image-input", "data",
                                                                "--class-labels", root + "Samples/age_labels.txt", "-o", model]).status, 0)
        let turned = fixtures + "images/exif/orientation_6.jpg", upright = fixtures + "images/exif/orientation_1.jpg"
        let applied = try ProgramRunner.run("coreml-predict", [model, turned, "--max-results", "8"])
        XCTAssertEqual(applied.status, 0, applied.standardError)
        XCTAssertEqual(applied.standardOutput.split(separator: "\n").dropFirst().first,
                       "EXIF orientation applied as OpenCV's imread does (Vision: pass it as the handler's orientation)", applied.standardOutput)
        let ignored = try ProgramRunner.run("coreml-predict", [model, turned, "--max-results", "8", "--ignore-exif-orientation"])
        XCTAssertEqual(ignored.status, 0, ignored.standardError)
        XCTAssertEqual(ignored.standardOutput.split(separator: "\n").dropFirst().first,
                       "EXIF orientation ignored (--ignore-exif-orientation: Vision given .up)", ignored.standardOutput)
        // Ignored, the turned file is the upright one's stored pixels: the same labels; applied, others.
        let stored = try ProgramRunner.run("coreml-predict", [model, upright, "--max-results", "8"])
        func labels(_ output: String) -> [Substring] { Array(output.split(separator: "\n").dropFirst(3)) }
        XCTAssertEqual(labels(ignored.standardOutput), labels(stored.standardOutput))
        XCTAssertNotEqual(labels(applied.standardOutput), labels(stored.standardOutput))
        let json = try ProgramRunner.run("coreml-predict", [model, turned, "--json", "--ignore-exif-orientation"])
        XCTAssertTrue(json.standardOutput.contains("\"exifOrientation\" : \"ignored\""), json.standardOutput)
    }

    /// Vision's three ways of fitting an image, by Vision's names, and the one used printed.
    func testPredictFitsImagesAsVisionDoes() throws {
        let model = try temporaryFolder().path + "/AgeNet.mlmodel"
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["caffe", deploy, weights, "--image-input", "data",
                                                                "--class-labels", root + "Samples/age_labels.txt", "-o", model]).status, 0)
        let image = fixtures + "images/crop_src.png"
        var firstLines: [String] = []
        for mode in ["centerCrop", "scaleFill", "scaleFit"] {
            let result = try ProgramRunner.run("coreml-predict", [model, image, "--crop-and-scale", mode, "--max-results", "8"])
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.hasPrefix("images: \(mode) to 227x227 (--crop-and-scale; Vision: centerCrop, "
                                                          + "CoreMLRequest: scaleToFill)\nEXIF orientation applied"),
                          result.standardOutput)
            firstLines.append(result.standardOutput.split(separator: "\n").dropFirst(3).joined(separator: "\n"))
            let json = try ProgramRunner.run("coreml-predict", [model, image, "--crop-and-scale", mode, "--json"])
            XCTAssertTrue(json.standardOutput.contains("\"cropAndScale\" : \"\(mode)\""), json.standardOutput)
        }
        XCTAssertEqual(Set(firstLines).count, 3, "three fits of a non-square image give three results: \(firstLines)")
        let plain = try ProgramRunner.run("coreml-predict", [model, image])
        XCTAssertTrue(plain.standardOutput.hasPrefix("images: scaleFill to 227x227"), plain.standardOutput)
        try ProgramRunner.assertOneError("coreml-predict", [model, image, "--crop-and-scale", "centercrop"],
                        "invalid value 'centercrop' for '--crop-and-scale': takes centerCrop, scaleFill, scaleFit; did you mean centerCrop?",
                        status: 64)
    }

    /// A deploy definition that does not hold together is named once in the
    /// message, not once by the converter and again by inspect.
    func testInspectNamesADeployDefinitionOnce() throws {
        let folder = try temporaryFolder()
        let deploy = folder.appendingPathComponent("dup.prototxt").path
        try """
            input: "data"
            input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }
            layer { name: "a" type: "ReLU" bottom: "data" top: "x" }
            layer { name: "a" type: "ReLU" bottom: "x" top: "y" }
            """.write(toFile: deploy, atomically: true, encoding: .utf8)
        try ProgramRunner.assertOneError("coreml-inspect", [deploy], "error: \(deploy): two layers are named 'a'")
    }

    /// Every program's and every convert subcommand's --help ends with
    /// EXAMPLES: 2 to 4 commands, each run here as written (in a folder
    /// holding fixtures under the examples' file names) and succeeding
    /// with no warning, so that a renamed option or a changed default
    /// breaks this test, not a newcomer's first command.
    func testEveryHelpEndsWithExamplesThatRun() throws {
        let files: [String: String] = [
            "deploy_age.prototxt": root + "Samples/deploy_age.prototxt", "age_net.caffemodel": weights,
            "age_labels.txt": root + "Samples/age_labels.txt", "face.png": face, "photos/face.png": face,
            "resnet18.onnx": fixtures + "onnx/resnet_opset13/model.onnx", "yolov8n.onnx": fixtures + "onnx/yolov8_detector/model.onnx",
            "coco.txt": fixtures + "onnx/yolov8_detector/labels.txt", "model.onnx": fixtures + "onnx/resnet_opset13/model.onnx",
            "labels.txt": fixtures + "tensorflow/vgg_head/labels.txt", "graph.pb": fixtures + "tensorflow/vgg_head/graph.pb",
            "model.h5": fixtures + "keras/dynamic_input/model.h5", "classifier.h5": fixtures + "keras/sequential_classifier/model.h5",
            "yolo.cfg": fixtures + "darknet/tiny_yolo/model.cfg", "yolo.weights": fixtures + "darknet/tiny_yolo/model.weights",
            "classifier.tflite": fixtures + "tflite/mobilenet_block/model.tflite", "labelled.tflite": fixtures + "tflite/metadata_classifier/model.tflite",
            "Model.mlmodel": fixtures + "runtime/classifier/model.mlmodel", "x.npy": fixtures + "runtime/classifier/input_x.npy",
        ]
        let helps = [("coreml-convert", [String]())] + ["caffe", "tensorflow", "keras", "onnx", "tflite", "darknet", "mlmodel", "sample"]
            .map { ("coreml-convert", [$0]) } + ["coreml-inspect", "coreml-predict", "coreml-generate"].map { ($0, [String]()) }
        for (program, subcommand) in helps {
            let help = try ProgramRunner.run(program, subcommand + ["--help"])
            XCTAssertEqual(help.status, 0, help.standardError)
            let name = ([program] + subcommand).joined(separator: " ")
            guard let start = help.standardOutput.range(of: "\n\nEXAMPLES:\n") else {
                XCTFail("\(name) --help has no EXAMPLES section")
                continue
            }
            let section = help.standardOutput[start.upperBound...]
            XCTAssertFalse(section.contains("\n\n"), "\(name): EXAMPLES is the last section")
            for line in section.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, "\(name): \(line)") }
            // The commands: the lines that are not `# task`, a line ending in ` \\` continued on the next.
            var commands: [String] = [], continued = false
            for line in section.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.hasPrefix("#") {
                let text = line.hasSuffix(" \\") ? String(line.dropLast(2)) : line
                if continued { commands[commands.count - 1] += " " + text } else { commands.append(text) }
                continued = line.hasSuffix(" \\")
            }
            XCTAssertTrue((2...4).contains(commands.count), "\(name): \(commands.count) examples")
            // A fresh folder per help: the files its examples name, and the AgeNet they convert first.
            let folder = try temporaryFolder()
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: false)
            for (name, source) in files {
                try FileManager.default.copyItem(atPath: source, toPath: folder.appendingPathComponent(name).path)
            }
            let ageNet = try ProgramRunner.run("coreml-convert", ["caffe", "deploy_age.prototxt", "age_net.caffemodel", "--image-input", "data",
                                                                  "--class-labels", "age_labels.txt", "-o", "AgeNet.mlmodel", "-q"],
                                               currentDirectory: folder)
            XCTAssertEqual(ageNet.status, 0, ageNet.standardError)
            for command in commands {
                let words = command.split(separator: " ").map(String.init)
                XCTAssertEqual(words.first, program, "\(name): \(command)")
                if !subcommand.isEmpty { XCTAssertEqual(words.dropFirst().first, subcommand[0], "\(name): \(command)") }
                let result = try ProgramRunner.run(program, Array(words.dropFirst()), currentDirectory: folder)
                XCTAssertEqual(result.status, 0, "\(command): \(result.standardError)")
                XCTAssertFalse(result.standardError.contains("warning:"), "\(command): \(result.standardError)")
            }
        }
    }
}
