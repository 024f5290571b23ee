import Foundation
import TestSupport
import XCTest

/// `inspect` on every format it reads, in every output form, against
/// recorded snapshots; the Caffe view against the converted model's; bad inputs.
final class InspectTests: XCTestCase {
    let root = repositoryRoot.path + "/"

    /// A model to inspect: the files on the command line (relative to the
    /// repository), and a snapshot name.
    struct Case {
        var name: String
        var files: [String]
        var hasGraph = true
    }

    static let caffeFixtures = ["age_net_v1", "layers_v2", "mean_file", "resnet_bn"]

    var cases: [Case] {
        [Case(name: "caffe-sample", files: ["Samples/deploy_age.prototxt", "--weights", "Samples/age_net.caffemodel"]),
         Case(name: "caffemodel-sample", files: ["Samples/age_net.caffemodel"]),
         Case(name: "coreml-builder_classifier", files: ["Tests/Fixtures/coreml/builder_classifier.mlmodel"]),
         Case(name: "coreml-builder_half", files: ["Tests/Fixtures/coreml/builder_half.mlmodel"]),
         Case(name: "coreml-quantized_linear5", files: ["Tests/Fixtures/quantization/linear5.mlmodel"]),
         Case(name: "coreml-quantized_kmeans4", files: ["Tests/Fixtures/quantization/kmeans4.mlmodel"]),
         Case(name: "coreml-builder_layers", files: ["Tests/Fixtures/coreml/builder_layers.mlmodel"]),
         Case(name: "caffe-resnet_bn_h5", files: ["Tests/Fixtures/caffe/resnet_bn_h5/deploy.prototxt", "--weights",
                                                  "Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5"]),
         Case(name: "caffe-hdf5-resnet_bn_h5", files: ["Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5"], hasGraph: false),
         Case(name: "tensorflow-vgg_head", files: ["Tests/Fixtures/tensorflow/vgg_head/graph.pb"]),
         Case(name: "tensorflow-text-mobilenet_block", files: ["Tests/Fixtures/tensorflow/mobilenet_block/graph.pbtxt"]),
         Case(name: "keras-sequential_classifier", files: ["Tests/Fixtures/keras/sequential_classifier/model.h5"]),
         Case(name: "keras-functional_separable", files: ["Tests/Fixtures/keras/functional_separable/model.h5"])]
        + Self.caffeFixtures.map { name in
            Case(name: "caffe-\(name)", files: ["Tests/Fixtures/caffe/\(name)/deploy.prototxt", "--weights",
                                                "Tests/Fixtures/caffe/\(name)/weights.caffemodel"])
        }
    }

    func absolute(_ arguments: [String]) -> [String] {
        arguments.map { $0.hasPrefix("-") ? $0 : root + $0 }
    }

    /// Runs inspect, expects success and returns stdout with the repository path removed.
    func inspect(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try ProgramRunner.run("coreml-inspect", arguments)
        XCTAssertEqual(result.status, 0, "inspect \(arguments): \(result.standardError)", file: file, line: line)
        XCTAssertEqual(result.standardError, "", file: file, line: line)
        return result.standardOutput.replacingOccurrences(of: root, with: "")
    }

    /// Summary, --layers, --weight-stats, --json (with weight statistics) and
    /// --graph dot of every case. The tables follow the summary, which is
    /// recorded once, so their snapshots hold only the table.
    func testEveryFormatInEveryOutputForm() throws {
        for testCase in cases {
            let files = absolute(testCase.files)
            let summary = try inspect(files)
            XCTAssertFalse(summary.contains("\u{1B}["), "no color when piped")
            try assertSnapshot(summary, named: "inspect-\(testCase.name)")
            for (flag, form) in [("--layers", "layers"), ("--weight-stats", "weights")] {
                let output = try inspect([flag] + files)
                XCTAssertTrue(output.hasPrefix(summary + "\n"), "\(testCase.name) \(flag) starts with the summary")
                try assertSnapshot(String(output.dropFirst(summary.count + 1)), named: "inspect-\(testCase.name)-\(form)")
            }
            let json = try inspect(["--json", "--weight-stats"] + files)
            XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json.utf8)), "\(testCase.name): valid JSON")
            try assertSnapshot(json, named: "inspect-\(testCase.name)-json")
            if testCase.hasGraph {
                try assertSnapshot(try inspect(["--graph", "dot", "--graph-output", "-"] + files), named: "inspect-\(testCase.name)-graph")
            }
        }
    }

    /// The README's conversion of Samples/ (image input, labels), inspected.
    func testTheConvertedSampleModel() throws {
        let output = try temporaryFolder().appendingPathComponent("AgeNet.mlmodel").path
        let samples = root + "Samples/"
        let conversion = try ProgramRunner.run("coreml-convert", [
            "caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel", "--image-input", "data", "--is-bgr",
            "--red-bias", "-114.895847746", "--green-bias", "-87.7689143744", "--blue-bias", "-78.4263377603",
            "--class-labels", samples + "age_labels.txt", "-o", output])
        XCTAssertEqual(conversion.status, 0, conversion.standardError)
        let summary = try inspect([output])
        try assertSnapshot(summary, named: "inspect-coreml-sample")
        let layers = try inspect(["--layers", output])
        try assertSnapshot(String(layers.dropFirst(summary.count + 1)), named: "inspect-coreml-sample-layers")
        let json = try inspect(["--json", output]).replacingOccurrences(of: output, with: "<out>")
        try assertSnapshot(json, named: "inspect-coreml-sample-json")
    }

    /// For the same network, the Caffe view (prototxt + weights, after the
    /// converter's folds) and the `.mlmodel` that `convert caffe` writes agree
    /// on inputs, outputs, every layer's output shapes and parameter count,
    /// and the totals; the layers the Caffe view reports as removed or
    /// folded are not in the converted model.
    func testTheCaffeViewAgreesWithItsConvertedModel() throws {
        let folder = try temporaryFolder()
        var pairs = [("Samples/deploy_age.prototxt", "Samples/age_net.caffemodel"),
                     ("Tests/Fixtures/caffe/resnet_bn_h5/deploy.prototxt", "Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5")]
        pairs += Self.caffeFixtures.map { ("Tests/Fixtures/caffe/\($0)/deploy.prototxt", "Tests/Fixtures/caffe/\($0)/weights.caffemodel") }
        for (index, (deploy, weights)) in pairs.enumerated() {
            let output = folder.appendingPathComponent("model\(index).mlmodel").path
            let conversion = try ProgramRunner.run("coreml-convert", ["caffe", root + deploy, root + weights, "-o", output])
            XCTAssertEqual(conversion.status, 0, "\(deploy): \(conversion.standardError)")
            let caffe = try jsonObject(try inspect(["--json", root + deploy, "--weights", root + weights]))
            let coreML = try jsonObject(try inspect(["--json", output]))
            XCTAssertEqual((caffe["format"] as? [String: Any])?["id"] as? String, "caffe")
            XCTAssertEqual((coreML["format"] as? [String: Any])?["id"] as? String, "coreml")

            func features(_ document: [String: Any], _ key: String) -> [String] {
                (document[key] as? [[String: Any]] ?? []).map { "\($0["name"]!) \($0["type"]!) \($0["shape"]!)" }
            }
            XCTAssertEqual(features(caffe, "inputs"), features(coreML, "inputs"), deploy)
            XCTAssertEqual(features(caffe, "outputs"), features(coreML, "outputs"), deploy)
            func layers(_ document: [String: Any]) -> [String] {
                (document["layers"] as? [[String: Any]] ?? []).map {
                    "\($0["name"]!) \($0["type"]!) \($0["outputShapes"]!) \($0["parameters"]!)"
                }
            }
            XCTAssertEqual(layers(caffe), layers(coreML), deploy)
            XCTAssertFalse(layers(caffe).isEmpty)
            for key in ["layerCount", "multiplyAccumulates"] {
                XCTAssertEqual(caffe[key] as? Int, coreML[key] as? Int, "\(deploy): \(key)")
            }
            XCTAssertEqual((caffe["parameters"] as? [String: Any])?["count"] as? Int,
                           (coreML["parameters"] as? [String: Any])?["count"] as? Int, deploy)

            // The documented folds: what the Caffe view says went away is not in the converted model.
            let names = Set((coreML["layers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            for note in caffe["notes"] as? [[String: Any]] ?? [] {
                // "bn1 (BatchNorm), scale1 (Scale) into conv1", "drop6, drop7 (Dropout)"
                let gone = (note["items"] as? [String] ?? []).flatMap { item in
                    item.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
                }
                XCTAssertFalse(gone.isEmpty)
                for layer in gone { XCTAssertFalse(names.contains(layer), "\(deploy): \(layer) was \(note["label"]!)") }
            }
        }
    }

    func jsonObject(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testTheFoldsAreNamedInTheSummary() throws {
        let summary = try inspect(absolute(["Tests/Fixtures/caffe/resnet_bn/deploy.prototxt", "Tests/Fixtures/caffe/resnet_bn/weights.caffemodel"]))
        XCTAssertTrue(summary.contains("Folded:       bn_conv1 (BatchNorm), scale_conv1 (Scale) into conv1\n"
                                       + "              bn2a_branch2a (BatchNorm), scale2a_branch2a (Scale) into res2a_branch2a\n"), summary)
        let sample = try inspect(absolute(["Samples/deploy_age.prototxt", "--weights", "Samples/age_net.caffemodel"]))
        XCTAssertTrue(sample.contains("Removed:      drop6, drop7 (Dropout)\n"), sample)
        // The four spellings of a prototxt's weights say the same.
        XCTAssertEqual(try inspect(absolute(["Samples/deploy_age.prototxt", "--weights=Samples/age_net.caffemodel"])), sample)
        XCTAssertEqual(try inspect(absolute(["Samples/deploy_age.prototxt", "Samples/age_net.caffemodel"])), sample)
        XCTAssertEqual(try inspect(absolute(["--weights", "Samples/age_net.caffemodel", "Samples/deploy_age.prototxt"])), sample)
        // --weight-stats lists the tensors, however the weights come.
        let both = try inspect(absolute(["--weight-stats", "Samples/deploy_age.prototxt", "Samples/age_net.caffemodel"]))
        XCTAssertTrue(both.hasPrefix(sample + "\nlayer  tensor"), both)
        let layers = try inspect(absolute(["Tests/Fixtures/caffe/layers_v2/deploy.prototxt", "Tests/Fixtures/caffe/layers_v2/weights.caffemodel"]))
        XCTAssertTrue(layers.contains("Removed:      split (Split)\n              drop (Dropout)\n"), layers)
    }

    func testSeveralFilesGetHeadingsAndJSONBecomesAnArray() throws {
        let files = absolute(["Tests/Fixtures/coreml/builder_classifier.mlmodel", "Samples/deploy_age.prototxt",
                              "Samples/age_net.caffemodel", "Samples/age_net.caffemodel"])
        let text = try inspect(files)
        XCTAssertEqual(text.components(separatedBy: "\n== ").count, 3, text)
        XCTAssertTrue(text.hasPrefix("== Tests/Fixtures/coreml/builder_classifier.mlmodel\nFormat:"), text)
        XCTAssertTrue(text.contains("\n== Samples/deploy_age.prototxt + Samples/age_net.caffemodel\nFormat:       Caffe V1 net\n"), text)
        XCTAssertTrue(text.contains("\n== Samples/age_net.caffemodel\nFormat:       Caffe weights (caffemodel, V1 layers)\n"), text)
        let documents = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try inspect(["--json"] + files).utf8)) as? [[String: Any]])
        XCTAssertEqual(documents.map { ($0["format"] as? [String: Any])?["id"] as? String }, ["coreml", "caffe", "caffemodel"])
    }

    func testGraphOutputFileAndSVG() throws {
        let folder = try temporaryFolder()
        let model = root + "Tests/Fixtures/coreml/builder_classifier.mlmodel"
        let dotFile = folder.appendingPathComponent("graph.dot").path
        let summary = try inspect([model, "--graph", "dot", "--graph-output", dotFile])
        XCTAssertTrue(summary.hasPrefix("Format:       Core ML model"), "the summary still goes to stdout")
        XCTAssertEqual(try String(contentsOfFile: dotFile, encoding: .utf8), try inspect(["--graph", "dot", "--graph-output", "-", model]))
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") else { throw XCTSkip("Graphviz is not installed") }
        let svg = try inspect(["--graph", "svg", "--graph-output", "-", model])
        XCTAssertTrue(svg.contains("<svg"), svg)
        XCTAssertTrue(svg.contains("conv1") && svg.contains("4x16x16"), "labels reach the SVG")
    }

    func testSVGWithoutGraphvizIsOneClearError() throws {
        let process = Process()
        process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent("coreml-inspect")
        process.arguments = ["--graph", "svg", "--graph-output", "-", root + "Tests/Fixtures/coreml/builder_classifier.mlmodel"]
        process.environment = ["PATH": try temporaryFolder().path, "NO_COLOR": "1"]
        let error = Pipe(), output = Pipe()
        process.standardError = error
        process.standardOutput = output
        try process.run()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertEqual(message, "error: --graph svg needs Graphviz's dot program, which is not on PATH (Debian: apt-get install graphviz); "
                       + "--graph dot writes the DOT text instead\n")
    }

    /// Bad files: one `error:` line naming the file and what is wrong, exit 1, nothing on stdout.
    func testBadInputsAreOneLineNamingTheFile() throws {
        let folder = try temporaryFolder()
        func write(_ name: String, _ data: Data) throws -> String {
            let url = folder.appendingPathComponent(name)
            try data.write(to: url)
            return url.path
        }
        let model = try Data(contentsOf: URL(fileURLWithPath: root + "Tests/Fixtures/coreml/builder_layers.mlmodel"))
        let truncated = try write("truncated.mlmodel", model.prefix(model.count / 2))
        let notPrototxt = try write("notes.prototxt", Data("This is a text file about models:\nlayers of paint, inputs of coffee.\n".utf8))
        let empty = try write("empty.mlmodel", Data())
        let unknown = try write("image.caffemodel", Data([0x00, 0x01, 0x02, 0xFF, 0x00, 0x10, 0x20]))
        let deploy = root + "Samples/deploy_age.prototxt"
        let resnetWeights = root + "Tests/Fixtures/caffe/resnet_bn/weights.caffemodel"
        let cases: [(String, [String], String)] = [
            ("truncated .mlmodel", [truncated], "truncated.mlmodel: byte "),
            ("text, not a prototxt", [notPrototxt],
             "notes.prototxt: a text file, but not a Caffe deploy prototxt or a TensorFlow .pbtxt (it has no top-level layer, layers, input or node field)"),
            ("empty file", [empty], "empty.mlmodel: the file is empty"),
            ("unknown format", [unknown], "image.caffemodel: unknown format: not a Core ML model (.mlmodel), a Caffe deploy prototxt"),
            ("--weight-stats without weights", [deploy, "--weight-stats"],
             "deploy_age.prototxt: --weight-stats lists weight values, and a deploy definition has none"),
            ("weights of another net", [deploy, "--weights", resnetWeights], "deploy_age.prototxt:"),
            ("not weights", [deploy, "--weights", truncated], "truncated.mlmodel: not Caffe weights"),
            ("HDF5 has no graph", ["--graph", "dot", "--graph-output", "-", root + "Tests/Fixtures/caffe/resnet_bn_h5/weights.caffemodel.h5"],
             "weights.caffemodel.h5: Caffe weights (HDF5) store blobs only, no graph"),
        ]
        for (what, arguments, fragment) in cases {
            let result = try ProgramRunner.run("coreml-inspect", arguments)
            XCTAssertEqual(result.status, 1, "\(what): \(result.standardError)")
            XCTAssertEqual(result.standardOutput, "", what)
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "\(what): \(result.standardError)")
            XCTAssertTrue(result.standardError.hasPrefix("error: ") && result.standardError.contains(fragment),
                          "\(what): \(result.standardError)")
        }
    }

    func testUsageMistakesExit64() throws {
        let model = root + "Tests/Fixtures/coreml/builder_classifier.mlmodel"
        let cases: [([String], String)] = [
            (["--graph", "gif", model], "--graph takes dot, svg or png, not 'gif'"),
            (["--graph-output", "x.dot", model], "--graph-output needs --graph"),
            (["--graph", "dot", "--graph-output", "-", "--json", model], "--graph-output - prints only the graph"),
            (["--graph", "dot", "--graph-output", "x.dot", model, model], "--graph-output names the picture of one model, not 2"),
        ]
        for (arguments, fragment) in cases {
            let result = try ProgramRunner.run("coreml-inspect", arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains(fragment), result.standardError)
        }
    }
}
