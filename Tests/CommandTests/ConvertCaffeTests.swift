import Foundation
import TestSupport
import XCTest

/// `convert caffe` as the README shows it, and its bad inputs.
final class ConvertCaffeTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples")

    /// The README's conversion of Samples/, then predict on Samples/face.png:
    /// OpenCV dnn gives 15-20 (0.3680) for the same Caffe files (Samples/README.md).
    func testTheSampleConvertsAndPredictsWhatOpenCVDoes() throws {
        let output = try temporaryFolder().appendingPathComponent("AgeNet.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", sampleArguments(output: output))
        XCTAssertEqual(result.status, 0, result.standardError)
        try assertSnapshot(result.standardOutput.replacingOccurrences(of: output, with: "<out>"), named: "convert-caffe-sample")
        let prediction = try ProgramRunner.run("coreml-predict", [output, samples.appendingPathComponent("face.png").path, "--max-results", "1"])
        XCTAssertEqual(prediction.status, 0, prediction.standardError)
        XCTAssertTrue(prediction.standardOutput.contains("15-20  0.3680"), prediction.standardOutput)
    }

    /// BVLC's deploy files declare batch 10: the sample declared so, in each
    /// of Caffe's three ways, converts for one image, says so, and predicts
    /// what OpenCV dnn gives for the batch-1 file.
    func testADeclaredBatchConvertsForOneImage() throws {
        let folder = try temporaryFolder()
        let original = try String(contentsOf: samples.appendingPathComponent("deploy_age.prototxt"), encoding: .utf8)
        let header = "input: \"data\"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 227\ninput_dim: 227\n"
        XCTAssertTrue(original.contains(header))
        let declarations = [
            "input: \"data\"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 227\ninput_dim: 227\n",
            "input: \"data\"\ninput_shape { dim: 10 dim: 3 dim: 227 dim: 227 }\n",
        ]
        for (index, declaration) in declarations.enumerated() {
            let deploy = folder.appendingPathComponent("deploy\(index).prototxt").path
            try original.replacingOccurrences(of: header, with: declaration).write(toFile: deploy, atomically: true, encoding: .utf8)
            let output = folder.appendingPathComponent("AgeNet\(index).mlmodel").path
            let result = try ProgramRunner.run("coreml-convert", sampleArguments(output: output, prototxt: deploy))
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertTrue(result.standardOutput.contains("Batch:        data: declared for 10 images; converted for one"), result.standardOutput)
            XCTAssertTrue(result.standardOutput.contains("data: image<BGR,227x227>"), result.standardOutput)
            let prediction = try ProgramRunner.run("coreml-predict", [output, samples.appendingPathComponent("face.png").path, "--max-results", "1"])
            XCTAssertTrue(prediction.standardOutput.contains("15-20  0.3680"), prediction.standardOutput)
        }
    }

    /// A folder of images is predicted one image per core at a time: each
    /// image's probabilities are the ones it gets alone (within float
    /// rounding: a prediction alone splits its matrix products differently),
    /// in the order given; an unreadable image is one error line and the
    /// others are still predicted.
    func testAFolderPredictsWhatEachImageDoesAlone() throws {
        let output = try temporaryFolder().appendingPathComponent("AgeNet.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", sampleArguments(output: output)).status, 0)
        let folder = try temporaryFolder()
        let images = repositoryRoot.appendingPathComponent("Tests/Fixtures/images")
        let sources = [samples.appendingPathComponent("face.png")] + ["rgb.png", "gray.png", "palette.png", "crop_src.png"].map {
            images.appendingPathComponent($0)
        }
        for (index, source) in sources.enumerated() {
            try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent("\(index)-\(source.lastPathComponent)"))
        }
        try Data("not a picture".utf8).write(to: folder.appendingPathComponent("9-broken.png"))
        func probabilities(_ arguments: [String]) throws -> (status: Int32, results: [[String: Any]], errors: String) {
            let run = try ProgramRunner.run("coreml-predict", [output] + arguments + ["--json", "--max-results", "8"])
            let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
            return (run.status, results, run.standardError)
        }
        let together = try probabilities([folder.path])
        XCTAssertEqual(together.status, 1, "an image failed")
        XCTAssertEqual(together.errors.split(separator: "\n").filter { $0.hasPrefix("error:") }.count, 1, together.errors)
        XCTAssertTrue(together.errors.contains("9-broken.png"), together.errors)
        XCTAssertEqual(together.results.count, sources.count)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter { !$0.hasPrefix("9-") }
        for (file, result) in zip(files, together.results) {
            let path = folder.appendingPathComponent(file).path
            XCTAssertEqual(result["source"] as? String, path)
            let alone = try XCTUnwrap(probabilities([path]).results.first)
            XCTAssertEqual(result["classLabel"] as? String, alone["classLabel"] as? String, file)
            let ours = try XCTUnwrap(result["results"] as? [[String: Any]]), reference = try XCTUnwrap(alone["results"] as? [[String: Any]])
            XCTAssertEqual(ours.count, 8)
            for (a, b) in zip(ours, reference) {
                XCTAssertEqual(a["label"] as? String, b["label"] as? String, file)
                XCTAssertEqual(try XCTUnwrap(a["probability"] as? Double), try XCTUnwrap(b["probability"] as? Double), accuracy: 1e-6, file)
            }
        }
        let npy = try ProgramRunner.run("coreml-predict", [output, folder.path, "--output-npy", folder.appendingPathComponent("out").path])
        XCTAssertEqual(npy.status, 64, npy.standardError)
        XCTAssertTrue(npy.standardError.contains("--output-npy writes the outputs of one prediction: give one image, not 6"), npy.standardError)
    }

    func sampleArguments(output: String, prototxt: String? = nil, weights: String? = nil, labels: String? = nil) -> [String] {
        ["caffe", prototxt ?? samples.appendingPathComponent("deploy_age.prototxt").path,
         weights ?? samples.appendingPathComponent("age_net.caffemodel").path,
         "--image-input", "data", "--is-bgr", "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744",
         "--blue-bias", "-78.4263377603", "--class-labels", labels ?? samples.appendingPathComponent("age_labels.txt").path,
         "-o", output]
    }

    func testBadInputsAreOneLineAndWriteNothing() throws {
        let folder = try temporaryFolder()
        let deploy = try String(contentsOf: samples.appendingPathComponent("deploy_age.prototxt"), encoding: .utf8)
        let weights = try Data(contentsOf: samples.appendingPathComponent("age_net.caffemodel"))
        func write(_ name: String, _ text: String) throws -> String {
            let url = folder.appendingPathComponent(name)
            try text.write(to: url, atomically: false, encoding: .utf8)
            return url.path
        }
        let unbalanced = try write("unbalanced.prototxt", deploy + "\nlayers {\n  name: \"extra\"\n")
        let unknown = try write("unknown.prototxt", deploy.replacingOccurrences(of: "type: SOFTMAX", with: "type: THRESHOLD"))
        let missingBottom = try write("bottom.prototxt", deploy.replacingOccurrences(of: "bottom: \"fc8\"", with: "bottom: \"fc9\""))
        let widened = try write("widened.prototxt", deploy.replacingOccurrences(of: "num_output: 8\n", with: "num_output: 9\n"))
        let truncated = folder.appendingPathComponent("truncated.caffemodel")
        try weights.prefix(weights.count / 2).write(to: truncated)
        let emptyLabels = try write("empty.txt", "")
        let shortLabels = try write("short.txt", "0-2\n4-6\n")
        let cases: [(String, [String], String)] = [
            ("unbalanced braces", sampleArguments(output: "", prototxt: unbalanced), "unbalanced.prototxt:"),
            ("unknown layer", sampleArguments(output: "", prototxt: unknown), "1 layer of 1 unsupported layer type: Threshold x1 (prob)"),
            ("missing bottom", sampleArguments(output: "", prototxt: missingBottom), "bottom 'fc9' is not produced"),
            ("blob shape", sampleArguments(output: "", prototxt: widened), "has shape [8, 3, 7, 7], the deploy definition needs [9, 3, 7, 7]"),
            ("truncated weights", sampleArguments(output: "", weights: truncated.path), "truncated.caffemodel: byte "),
            ("empty labels", sampleArguments(output: "", labels: emptyLabels), "empty.txt: no labels"),
            ("too few labels", sampleArguments(output: "", labels: shortLabels), "short.txt: 2 class labels"),
        ]
        for (what, arguments, fragment) in cases {
            let output = folder.appendingPathComponent("\(what).mlmodel").path
            try Data("old".utf8).write(to: URL(fileURLWithPath: output))
            let result = try ProgramRunner.run("coreml-convert", arguments.dropLast() + [output])
            XCTAssertEqual(result.status, 1, "\(what): \(result.standardError)")
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "\(what): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(fragment), "\(what): \(result.standardError)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data("old".utf8), "\(what): output touched")
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "temporary files left behind")
    }
}
