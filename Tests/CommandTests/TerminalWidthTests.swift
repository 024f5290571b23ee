import Foundation
import TestSupport
import XCTest

/// No line of a program's default (non-JSON) output is wider than a
/// terminal's 100 columns, on the suite's models in their usual modes;
/// `--json` keeps what the text shortens. And a detector's boxes are
/// counted and cut to `--max-results`.
final class TerminalWidthTests: XCTestCase {
    static let columns = 100
    let root = repositoryRoot.path + "/"
    var fixtures: String { root + "Tests/Fixtures/" }

    /// Lines of stdout and stderr wider than `columns`, each named by the command that printed it.
    var tooWide: [String] = []
    /// Paths the test made up, measured as if they were short (`Wrote <path>` is as long as the path given).
    var scratch: [String] = []

    /// Runs `program`, expects `status`, and records every line wider than `columns`.
    @discardableResult
    func run(_ program: String, _ arguments: [String], status: Int32 = 0, timeout: TimeInterval = 300,
             file: StaticString = #filePath, line: UInt = #line) throws -> ProgramRunner.Result {
        let result = try ProgramRunner.run(program, arguments, timeout: timeout, file: file, line: line)
        let command = ([program] + arguments).joined(separator: " ").replacingOccurrences(of: root, with: "")
        XCTAssertEqual(result.status, status, "\(command): \(result.standardError)", file: file, line: line)
        for text in [result.standardOutput, result.standardError] {
            // The test's own temporary folders (TMPDIR can make them long: scripts/verify/test_models.sh) count as empty, like `root`.
            let measured = (scratch + [sessionFolder.path + "/"]).reduce(text.replacingOccurrences(of: root, with: "")) {
                $0.replacingOccurrences(of: $1, with: "")
            }
            for printed in measured.split(separator: "\n", omittingEmptySubsequences: false) where Self.cells(printed) > Self.columns {
                tooWide.append("\(command): \(Self.cells(printed)) columns: \(printed.prefix(160))")
            }
        }
        return result
    }

    /// The terminal cells a line takes, measured here on its own (not with
    /// the programs' `TerminalCells`): 2 for the CJK, Hangul, fullwidth and
    /// emoji blocks, 0 for combining accents, 1 for the rest.
    static func cells(_ line: Substring) -> Int {
        line.unicodeScalars.reduce(0) { total, scalar in
            switch scalar.value {
            case 0x0300...0x036F: total
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
                 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD: total + 2
            default: total + 1
            }
        }
    }

    /// Layer names in Chinese take two cells a character: the tables are
    /// fitted to 100 cells, not 100 characters, and shortened names keep
    /// whole characters.
    func testWideCharactersAreMeasuredInCells() throws {
        let folder = try temporaryFolder()
        let name = String(repeating: "卷积层", count: 12)  // 36 characters, 72 cells
        var prototxt = "name: \"宽字符网络\"\ninput: \"数据\"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 16\ninput_dim: 16\n"
        var bottom = "数据"
        for index in 1...3 {
            let top = "\(name)_\(index)"
            prototxt += "layer { name: \"\(top)\" type: \"Convolution\" bottom: \"\(bottom)\" top: \"\(top)\" "
                + "convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }\n"
            bottom = top
        }
        let deploy = folder.appendingPathComponent("deploy.prototxt")
        try prototxt.write(to: deploy, atomically: true, encoding: .utf8)
        let table = try run("coreml-inspect", ["--layers", deploy.path])
        XCTAssertTrue(table.standardOutput.contains("卷积层"), table.standardOutput)

        // predict's label column: the probabilities start in one column whatever the labels' widths.
        let labels = folder.appendingPathComponent("labels.txt")
        try "零到二岁\n4-6\n八到十三岁\n15-20\n二十五岁\n38-43\n48-53\n六十\n".write(to: labels, atomically: true, encoding: .utf8)
        let model = folder.appendingPathComponent("Ages.mlmodel").path
        try run("coreml-convert", ["caffe", root + "Samples/deploy_age.prototxt", root + "Samples/age_net.caffemodel", "--image-input", "data",
                                   "--class-labels", labels.path, "-q", "-o", model])
        let ranked = try run("coreml-predict", [model, root + "Samples/face.png", "--max-results", "8"])
        let rows = ranked.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  ") }
        XCTAssertEqual(rows.count, 8, ranked.standardOutput)
        let columns = Set(rows.map { row in Self.cells(row[..<row.range(of: "0.")!.lowerBound]) })
        XCTAssertEqual(columns.count, 1, "probabilities in one column: \(ranked.standardOutput)")
        XCTAssertEqual(tooWide, [], "lines wider than \(Self.columns) cells:\n" + tooWide.joined(separator: "\n"))
    }

    /// The models of the suite, as inspect takes them.
    var inspected: [[String]] {
        var models: [[String]] = [
            ["Samples/deploy_age.prototxt", "--weights", "Samples/age_net.caffemodel"], ["Samples/age_net.caffemodel"],
            ["Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5"],
        ]
        for name in ["age_net_v1", "layers_v2", "mean_file", "modern_blocks", "resnet_bn", "ssd"] {
            models.append(["Tests/Fixtures/caffe/\(name)/deploy.prototxt", "--weights", "Tests/Fixtures/caffe/\(name)/weights.caffemodel"])
        }
        for name in ["builder_classifier", "builder_detector", "builder_half", "builder_layers"] {
            models.append(["Tests/Fixtures/coreml/\(name).mlmodel"])
        }
        for name in ["float16", "kmeans4", "linear5", "lut3"] { models.append(["Tests/Fixtures/quantization/\(name).mlmodel"]) }
        for name in ["inception_resnet_block", "mobilenet_block", "vgg_head", "yolo_passthrough"] {
            let folder = fixtures + "tensorflow/" + name
            let graph = FileManager.default.fileExists(atPath: folder + "/graph.pb") ? "/graph.pb" : "/graph.pbtxt"
            models.append(["Tests/Fixtures/tensorflow/\(name)\(graph)"])
        }
        for name in ["sequential_classifier", "functional_separable", "convnext_blocks", "layers_misc"] {
            models.append(["Tests/Fixtures/keras/\(name)/model.h5"])
        }
        for name in ["vit_opset17", "encoder_opset17", "mobilenet_v3_opset17", "densenet_opset17"] {
            models.append(["Tests/Fixtures/onnx/\(name)/model.onnx"])
        }
        for name in ["tiny_yolo", "yolov2_reorg"] {
            models.append(["Tests/Fixtures/darknet/\(name)/model.cfg", "Tests/Fixtures/darknet/\(name)/model.weights"])
        }
        return models
    }

    func absolute(_ arguments: [String]) -> [String] {
        arguments.map { $0.hasPrefix("-") || $0.hasPrefix("/") || !$0.contains("/") ? $0 : root + $0 }
    }

    /// Summary, --layers and --weight-stats of every model; `--json` stays whole.
    func testInspectFitsATerminal() throws {
        for model in inspected {
            let files = absolute(model)
            try XCTSkipUnless(files.allSatisfy { $0.hasPrefix("-") || FileManager.default.fileExists(atPath: $0) }, "\(files)")
            for form in [[], ["--layers"], ["--weight-stats"]] { try run("coreml-inspect", form + files) }
        }
        XCTAssertEqual(tooWide, [], "lines wider than \(Self.columns) columns:\n" + tooWide.joined(separator: "\n"))
    }

    /// Each frontend's conversion summary, inspect of what it wrote, predict
    /// on the sample images and generate's summary.
    func testConvertPredictAndGenerateFitATerminal() throws {
        let folder = try temporaryFolder().path + "/"
        scratch.append(folder)
        let conversions: [(name: String, arguments: [String])] = [
            ("Age", ["caffe", "Samples/deploy_age.prototxt", "Samples/age_net.caffemodel", "--image-input", "data",
                     "--class-labels", "Samples/age_labels.txt"]),
            ("SSD", ["caffe", "Tests/Fixtures/caffe/ssd/deploy.prototxt", "Tests/Fixtures/caffe/ssd/weights.caffemodel",
                     "--image-input", "data", "--ignore-top-k"]),
            ("ResNet", ["caffe", "Tests/Fixtures/caffe/resnet_bn/deploy.prototxt", "Tests/Fixtures/caffe/resnet_bn/weights.caffemodel"]),
            ("YOLO", ["darknet", "Tests/Fixtures/darknet/tiny_yolo/model.cfg", "Tests/Fixtures/darknet/tiny_yolo/model.weights"]),
            ("ViT", ["onnx", "Tests/Fixtures/onnx/vit_opset17/model.onnx"]),
            ("ViT13", ["onnx", "Tests/Fixtures/onnx/vit_opset17/model.onnx", "--minimum-deployment-target", "iOS13"]),
            ("Encoder", ["onnx", "Tests/Fixtures/onnx/encoder_opset17/model.onnx"]),
            ("MobileNetV3", ["onnx", "Tests/Fixtures/onnx/mobilenet_v3_opset17/model.onnx"]),
            ("Block", ["tensorflow", "Tests/Fixtures/tensorflow/mobilenet_block/graph.pbtxt"]),
            ("Keras", ["keras", "Tests/Fixtures/keras/functional_separable/model.h5"]),
            ("Sample", ["sample"]),
        ]
        for conversion in conversions {
            let output = folder + conversion.name + ".mlmodel"
            try run("coreml-convert", absolute(conversion.arguments) + ["-o", output])
            for form in [[], ["--layers"], ["--weight-stats"]] { try run("coreml-inspect", form + [output]) }
            try run("coreml-generate", [output, folder + conversion.name + "-classes"])
        }
        try run("coreml-convert", ["mlmodel", folder + "ViT.mlmodel", "--quantize-weights", "8", "-o", folder + "ViT8.mlmodel"])
        for image in ["Samples/face.png", "Tests/Fixtures/images/crop_src.png"] {
            try run("coreml-predict", [folder + "Age.mlmodel", root + image])
            try run("coreml-predict", [folder + "SSD.mlmodel", root + image])
            try run("coreml-predict", [folder + "YOLO.mlmodel", root + image, "--confidence-threshold", "0.01"])
        }
        try run("coreml-predict", [folder + "Age.mlmodel", root + "Tests/Fixtures/images/exif/orientation_6.jpg", "--ignore-exif-orientation"])
        XCTAssertEqual(tooWide, [], "lines wider than \(Self.columns) columns:\n" + tooWide.joined(separator: "\n"))
    }

    /// --help of every program and subcommand, and a usage mistake of each:
    /// one error line and one hint, not the whole usage block.
    func testHelpAndUsageErrorsFitATerminal() throws {
        let subcommands = ["caffe", "tensorflow", "keras", "onnx", "darknet", "mlmodel", "sample"]
        for arguments in [["--help"]] + subcommands.map({ [$0, "--help"] }) { try run("coreml-convert", arguments) }
        for program in ["coreml-inspect", "coreml-predict", "coreml-generate"] { try run(program, ["--help"]) }
        let mistakes: [(String, [String])] = [
            ("coreml-convert", ["caffe", root + "Samples/deploy_age.prototxt", "--outptu", "x"]),
            ("coreml-convert", ["onnx", "model.onnx", "--image-inptu", "x", "-o", "y"]),
            ("coreml-convert", ["cafe"]),
            ("coreml-inspect", ["--layer", root + "Samples/age_net.caffemodel"]),
            ("coreml-predict", ["model.mlmodel", "--max-result", "3"]),
            ("coreml-generate", ["model.mlmodel", "out", "--langauge", "swift"]),
        ]
        for (program, arguments) in mistakes {
            let result = try run(program, arguments, status: 64)
            let lines = result.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, "\(program) \(arguments): \(result.standardError)")
            XCTAssertTrue(lines.first?.hasPrefix("error: ") == true, result.standardError)
            XCTAssertTrue(lines.last?.hasPrefix("see '\(program)") == true && lines.last?.hasSuffix(" --help' for its usage") == true,
                          result.standardError)
        }
        XCTAssertEqual(tooWide, [], "lines wider than \(Self.columns) columns:\n" + tooWide.joined(separator: "\n"))
    }

    /// A ViT's `Loads on:` names the kinds of layer that raise the version
    /// and their counts, not each layer; --json still lists every layer.
    func testLoadsOnCountsLayersAndJSONListsThem() throws {
        let model = try temporaryFolder().path + "/ViT.mlmodel"
        try run("coreml-convert", ["onnx", root + "Tests/Fixtures/onnx/vit_opset17/model.onnx", "--minimum-deployment-target", "iOS13",
                                   "-o", model])
        let summary = try run("coreml-inspect", [model]).standardOutput
        let loadsOn = summary.split(separator: "\n").drop { !$0.hasPrefix("Loads on:") }.prefix { $0.hasPrefix("Loads on:") || $0.hasPrefix("     ") }
        XCTAssertFalse(loadsOn.isEmpty, summary)
        XCTAssertLessThanOrEqual(loadsOn.joined().count, 400, "kinds and counts, not every layer: \(loadsOn)")
        let json = try run("coreml-inspect", ["--json", model]).standardOutput
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let deployment = try XCTUnwrap(object["deployment"] as? [String: Any], json.prefix(2000).description)
        // Every layer by name in the JSON; the text says how many of each kind.
        let groups = try XCTUnwrap(deployment["raisedBy"] as? [[String: Any]])
        XCTAssertGreaterThan(groups.count, 3)
        let text = loadsOn.map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        for group in groups {
            let type = try XCTUnwrap(group["type"] as? String), layers = try XCTUnwrap(group["layers"] as? [String])
            XCTAssertTrue(text.contains("\(layers.count) \(type) layer"), "\(type) x\(layers.count) in: \(text)")
            for name in layers { XCTAssertFalse(text.contains(name), "\(name) named in: \(text)") }
        }
        XCTAssertEqual(tooWide, [], tooWide.joined(separator: "\n"))
    }

    /// --max-results cuts a detector's box lines to the most confident and
    /// says how many there are; --json keeps every box.
    func testPredictCutsADetectorsBoxesToMaxResults() throws {
        let folder = try temporaryFolder().path + "/"
        let detectors: [(name: String, arguments: [String], threshold: String)] = [
            ("YOLO", ["darknet", "Tests/Fixtures/darknet/tiny_yolo/model.cfg", "Tests/Fixtures/darknet/tiny_yolo/model.weights"], "0.01"),
            ("SSD", ["caffe", "Tests/Fixtures/caffe/ssd/deploy.prototxt", "Tests/Fixtures/caffe/ssd/weights.caffemodel",
                     "--image-input", "data", "--ignore-top-k"], "0.01"),
        ]
        for detector in detectors {
            let model = folder + detector.name + ".mlmodel"
            try run("coreml-convert", absolute(detector.arguments) + ["-o", model])
            let image = root + "Samples/face.png"
            let base = [model, image, "--confidence-threshold", detector.threshold]
            let json = try run("coreml-predict", base + ["--json"]).standardOutput
            let results = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
            let all = try XCTUnwrap(results.first?["detections"] as? [[String: Any]]).count
            XCTAssertGreaterThan(all, 3, "\(detector.name): enough boxes to cut")
            let confidences = try XCTUnwrap(results.first?["detections"] as? [[String: Any]]).compactMap { $0["confidence"] as? Double }
            let text = try run("coreml-predict", base + ["--max-results", "3"]).standardOutput
            let boxes = text.split(separator: "\n").filter { $0.contains("  left ") }
            XCTAssertEqual(boxes.count, 3, "\(detector.name): \(text)")
            XCTAssertTrue(text.contains("\n  \(all) boxes kept after suppression; the 3 most confident shown (--max-results)\n"), text)
            // The three shown are the three most confident.
            let shown = boxes.compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Double($0) } }
            let best = confidences.sorted(by: >).prefix(3).map { String(format: "%.4f", $0) }
            XCTAssertEqual(shown.map { String(format: "%.4f", $0) }, best, text)
            // Without --max-results: the default 5; with a large one, every box and the count alone.
            let defaultRun = try run("coreml-predict", base).standardOutput
            XCTAssertEqual(defaultRun.split(separator: "\n").filter { $0.contains("  left ") }.count, min(5, all), defaultRun)
            let every = try run("coreml-predict", base + ["--max-results", String(all + 10)]).standardOutput
            XCTAssertEqual(every.split(separator: "\n").filter { $0.contains("  left ") }.count, all, every)
            XCTAssertTrue(every.contains("\n  \(all) boxes kept after suppression\n"), every)
        }
    }
}
