import Foundation
import TestSupport
import XCTest

/// `coreml-inspect --graph dot|svg|png` (issue 32): the picture next to the
/// model by default, `--graph-output FILE` or `-`, PNG through Graphviz,
/// layers coloured by kind, detectors drawn as their pipeline, and the
/// ways a picture can go wrong (over the model, an unwritable folder, no
/// Graphviz, a graph too large to lay out in time).
final class GraphCommandTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures").path + "/"
    let samples = repositoryRoot.appendingPathComponent("Samples").path + "/"
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    var hasGraphviz: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/dot") }

    func copy(_ source: String, to folder: URL, as name: String) throws -> String {
        let target = folder.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: target)
        return target
    }

    func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Width and height of a PNG after checking its signature and that its
    /// first chunk is IHDR.
    func pngSize(_ data: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> (Int, Int)? {
        guard data.count > 24, Array(data.prefix(8)) == Self.pngSignature, data[12..<16].elementsEqual("IHDR".utf8) else {
            XCTFail("not a PNG: \(data.prefix(16))", file: file, line: line)
            return nil
        }
        let number = { (at: Int) in data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }

    /// Runs inspect with stdout to `standardOutput` (a pipe when nil), its bytes kept as they are.
    func runRaw(_ arguments: [String], standardOutput: FileHandle? = nil, environment: [String: String] = [:])
        throws -> (status: Int32, output: [UInt8], error: String) {
        let process = Process()
        process.executableURL = ProgramRunner.productsDirectory.appendingPathComponent("coreml-inspect")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"].merging(environment) { $1 }) { $1 }
        let output = Pipe(), error = Pipe()
        process.standardOutput = standardOutput ?? output
        process.standardError = error
        try process.run()
        var collected = Data()
        let group = DispatchGroup()
        let errorBox = Box()
        DispatchQueue.global().async(group: group) { errorBox.data = error.fileHandleForReading.readDataToEndOfFile() }
        if standardOutput == nil { collected = output.fileHandleForReading.readDataToEndOfFile() }
        group.wait()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](collected), String(decoding: errorBox.data, as: UTF8.self))
    }

    final class Box: @unchecked Sendable {
        var data = Data()
    }

    // MARK: Where the picture goes

    /// Was: `--graph svg` printed the SVG on the terminal. Now it is written
    /// next to the model (M.svg for M.mlmodel), and stdout says where.
    func testThePictureIsWrittenNextToTheModel() throws {
        guard hasGraphviz else { throw XCTSkip("Graphviz is not installed") }
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let result = try ProgramRunner.run("coreml-inspect", [model, "--graph", "svg"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let picture = folder.appendingPathComponent("Net.svg").path
        XCTAssertFalse(result.standardOutput.contains("<svg"), "no SVG on stdout")
        XCTAssertTrue(result.standardOutput.hasSuffix("\nWrote \(picture)\n"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.hasPrefix("Format:       Core ML model"), "the summary as without --graph")
        let svg = try String(contentsOfFile: picture, encoding: .utf8)
        XCTAssertTrue(svg.contains("<svg") && svg.contains("conv1"), svg)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["Net.mlmodel", "Net.svg"],
                       "no temporary file left")

        let dot = try ProgramRunner.run("coreml-inspect", [model, "--graph", "dot"])
        XCTAssertEqual(dot.status, 0, dot.standardError)
        XCTAssertTrue(try String(contentsOfFile: folder.appendingPathComponent("Net.dot").path, encoding: .utf8).hasPrefix("digraph "))
        XCTAssertTrue(dot.standardOutput.hasSuffix("Wrote \(folder.appendingPathComponent("Net.dot").path)\n"), dot.standardOutput)
    }

    /// Was: `--graph takes one model, got 3`. Several models, of any
    /// format: one picture each, next to each (named after the deploy
    /// prototxt, the .onnx, the .cfg), one `Wrote` line each.
    func testSeveralModelsOfAnyFormatGetAPictureEach() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let deploy = try copy(samples + "deploy_age.prototxt", to: folder, as: "age.prototxt")
        let weights = try copy(samples + "age_net.caffemodel", to: folder, as: "age.caffemodel")
        let onnx = try copy(fixtures + "onnx/mobilenet_v3_opset17/model.onnx", to: folder, as: "mobile.onnx")
        let cfg = try copy(fixtures + "darknet/detector/model.cfg", to: folder, as: "yolo.cfg")
        let result = try ProgramRunner.run("coreml-inspect", [model, deploy, weights, onnx, cfg, "--graph", "dot"])
        XCTAssertEqual(result.status, 0, result.standardError)
        for name in ["Net", "age", "mobile", "yolo"] {
            let picture = folder.appendingPathComponent(name + ".dot").path
            XCTAssertTrue(result.standardOutput.contains("Wrote \(picture)\n"), result.standardOutput)
            XCTAssertTrue(try String(contentsOfFile: picture, encoding: .utf8).hasPrefix("digraph "), name)
        }
        XCTAssertTrue(try String(contentsOfFile: folder.appendingPathComponent("age.dot").path, encoding: .utf8).contains("innerProduct"))
        XCTAssertEqual(result.standardOutput.components(separatedBy: "\n== ").count, 4, "one section per model")

        // An empty name: a usage error (was `error: : cannot replace: No such file or directory`).
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "dot", "--graph-output", ""],
                                         "--graph-output takes a file name, or - for stdout", status: 64)
        // --graph-output names one picture: with several models, a usage error that says what to do.
        try ProgramRunner.assertOneError("coreml-inspect", [model, onnx, "--graph", "dot", "--graph-output", folder.path + "/x.dot"],
                                         "--graph-output names the picture of one model, not 2; leave it out", status: 64)
    }

    /// Was: `--graph prints only the graph` (a usage error). With --json the
    /// pictures are written and stdout stays one JSON document.
    func testJSONStaysJSONBesideThePictures() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let deploy = try copy(samples + "deploy_age.prototxt", to: folder, as: "age.prototxt")
        let result = try ProgramRunner.run("coreml-inspect", [model, deploy, "--json", "--layers", "--graph", "dot"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let documents = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [Any]
        XCTAssertEqual(documents?.count, 2, result.standardOutput)
        for name in ["Net.dot", "age.dot"] {
            XCTAssertTrue(try String(contentsOfFile: folder.appendingPathComponent(name).path, encoding: .utf8).hasPrefix("digraph "), name)
        }
    }

    /// `--graph-output -`: the picture alone on stdout (DOT, SVG, and PNG on
    /// a pipe), nothing written next to the model; PNG to a terminal is
    /// refused.
    func testDashPrintsThePictureOnStdout() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let dot = try ProgramRunner.run("coreml-inspect", [model, "--graph", "dot", "--graph-output", "-"])
        XCTAssertEqual(dot.status, 0, dot.standardError)
        XCTAssertTrue(dot.standardOutput.hasPrefix("digraph \"Net.mlmodel\" {\n") && dot.standardOutput.hasSuffix("}\n"), dot.standardOutput)
        XCTAssertFalse(dot.standardOutput.contains("Wrote"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent("-").path), "no file named -")

        guard hasGraphviz else { throw XCTSkip("Graphviz is not installed") }
        // PNG on a pipe: allowed (`coreml-inspect M --graph png --graph-output - | display`), the bytes intact.
        let png = try runRaw([model, "--graph", "png", "--graph-output", "-"])
        XCTAssertEqual(png.status, 0, png.error)
        if let (width, height) = pngSize(png.output) { XCTAssertTrue(width > 0 && height > 0) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Net.mlmodel"])

        // PNG to a terminal (util-linux's script gives the program one): refused before any work, with what to do.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("no script(1) for a terminal") }
        let command = [ProgramRunner.productsDirectory.appendingPathComponent("coreml-inspect").path, model, "--graph", "png", "--graph-output", "-"]
            .map { "'" + $0 + "'" }.joined(separator: " ")
        let script = Process()
        script.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        script.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        script.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }
        let terminal = Pipe()
        (script.standardInput, script.standardOutput) = (FileHandle.nullDevice, terminal)
        try script.run()
        let shown = String(decoding: terminal.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        script.waitUntilExit()
        XCTAssertEqual(script.terminationStatus, 64, shown)
        XCTAssertTrue(shown.hasPrefix("error: --graph png --graph-output - would write binary PNG to the terminal; "), shown)
        XCTAssertFalse(shown.contains("PNG\r\n"), "no PNG bytes on the terminal")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Net.mlmodel"])
    }

    // MARK: PNG

    /// Was: `--graph takes dot or svg, not 'png'`. A PNG laid out by
    /// Graphviz, next to the model.
    func testPNGIsLaidOutByGraphviz() throws {
        guard hasGraphviz else { throw XCTSkip("Graphviz is not installed") }
        let folder = try temporaryFolder()
        let deploy = try copy(samples + "deploy_age.prototxt", to: folder, as: "age.prototxt")
        let result = try ProgramRunner.run("coreml-inspect", [deploy, "--graph", "png"])
        XCTAssertEqual(result.status, 0, result.standardError)
        let picture = folder.appendingPathComponent("age.png").path
        XCTAssertTrue(result.standardOutput.hasSuffix("Wrote \(picture)\n"), result.standardOutput)
        let data = try bytes(picture)
        if let (width, height) = pngSize(data) {
            // 18 layers in a column: taller than wide, and more than a few pixels.
            XCTAssertGreaterThan(height, width)
            XCTAssertGreaterThan(height, 500)
        }
    }

    /// Was: the PNG refused as a usage error (64). Without Graphviz: one
    /// clear line naming what to install and what works without it, and no
    /// file.
    func testPNGWithoutGraphvizIsOneClearError() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let result = try ProgramRunner.run("coreml-inspect", [model, "--graph", "png"], environment: ["PATH": folder.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardOutput, "")
        XCTAssertEqual(result.standardError, "error: --graph png needs Graphviz's dot program, which is not on PATH "
                       + "(Debian: apt-get install graphviz); --graph dot writes the DOT text instead\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Net.mlmodel"])
    }

    /// A graph Graphviz cannot lay out in time (1,500 layers take dot
    /// about 10 s): stopped after --graph-timeout, for PNG as for SVG, with
    /// nothing written.
    func testAHugeGraphIsStoppedAfterItsTime() throws {
        guard hasGraphviz else { throw XCTSkip("Graphviz is not installed") }
        let folder = try temporaryFolder()
        var lines = ["name: \"huge\"", "input: \"data\"", "input_shape { dim: 1 dim: 1 dim: 2 dim: 2 }"]
        var tops = ["data"]
        for index in 0..<1500 {
            if index % 3 == 2 && tops.count > 5 {
                lines.append("layer { name: \"s\(index)\" type: \"Eltwise\" bottom: \"\(tops[tops.count - 1])\" bottom: \"\(tops[tops.count - 5])\" top: \"t\(index)\" }")
            } else {
                lines.append("layer { name: \"r\(index)\" type: \"ReLU\" bottom: \"\(tops.last!)\" top: \"t\(index)\" }")
            }
            tops.append("t\(index)")
        }
        let deploy = folder.appendingPathComponent("huge.prototxt").path
        try lines.joined(separator: "\n").write(toFile: deploy, atomically: false, encoding: .utf8)
        for format in ["png", "svg"] {
            let start = Date()
            let result = try ProgramRunner.run("coreml-inspect", [deploy, "--graph", format, "--graph-timeout", "1"])
            XCTAssertLessThan(Date().timeIntervalSince(start), 20, format)
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertEqual(result.standardOutput, "", format)
            XCTAssertEqual(result.standardError, "error: Graphviz's dot took over 1 s to lay out 1500 layers and was stopped; "
                           + "allow it longer with --graph-timeout, or write the DOT text with --graph dot and lay it out "
                           + "yourself (sfdp -T\(format) is faster on large graphs)\n")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["huge.prototxt"], format)
        }
    }

    // MARK: Output safety

    /// A model whose own name is the picture's (`Net.svg`, a Core ML file):
    /// refused before any work, the model intact; likewise --graph-output
    /// naming the model, or another name for it.
    func testThePictureNeverReplacesTheModel() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.svg")
        let original = try bytes(model)
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "svg"], "\(model): is an input of this run")
        let alias = folder.appendingPathComponent("alias.png").path
        XCTAssertEqual(link(model, alias), 0)
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "png", "--graph-output", alias], "\(alias): is an input of this run")
        XCTAssertEqual(try bytes(model), original, "the model is intact")
        // A symbolic link to the model is replaced by the picture (renamed over it), not written through.
        let symbolic = folder.appendingPathComponent("symbolic.dot").path
        XCTAssertEqual(symlink(model, symbolic), 0)
        let replaced = try ProgramRunner.run("coreml-inspect", [model, "--graph", "dot", "--graph-output", symbolic])
        XCTAssertEqual(replaced.status, 0, replaced.standardError)
        XCTAssertEqual(try bytes(model), original, "the model is intact")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: symbolic)[.type] as? FileAttributeType, .typeRegular)
        XCTAssertTrue(try String(contentsOfFile: symbolic, encoding: .utf8).hasPrefix("digraph "))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["Net.svg", "alias.png", "symbolic.dot"])

        // Two models whose pictures would be one file (net.pb and net.pbtxt): refused, nothing written.
        let graph = try copy(fixtures + "tensorflow/mobilenet_block/graph.pb", to: folder, as: "net.pb")
        let text = try copy(fixtures + "tensorflow/mobilenet_block/graph.pbtxt", to: folder, as: "net.pbtxt")
        let picture = folder.appendingPathComponent("net.dot").path
        try ProgramRunner.assertOneError("coreml-inspect", [graph, text, "--graph", "dot"],
                                         "\(picture): would hold the graphs of both \(graph) and \(text)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: picture))
    }

    /// An existing picture is replaced atomically: a new file renamed over
    /// it (a hard link to the old one keeps the old bytes), its permissions
    /// kept, no temporary left.
    func testAnExistingPictureIsReplacedAtomically() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        let picture = folder.appendingPathComponent("Net.dot").path
        try Data("old picture\n".utf8).write(to: URL(fileURLWithPath: picture))
        XCTAssertEqual(chmod(picture, 0o640), 0)
        let keep = folder.appendingPathComponent("old.dot").path
        XCTAssertEqual(link(picture, keep), 0)
        let result = try ProgramRunner.run("coreml-inspect", [model, "--graph", "dot"])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(try String(contentsOfFile: picture, encoding: .utf8).hasPrefix("digraph "))
        XCTAssertEqual(try String(contentsOfFile: keep, encoding: .utf8), "old picture\n", "the old file was not written into")
        let attributes = try FileManager.default.attributesOfItem(atPath: picture)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o640)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["Net.dot", "Net.mlmodel", "old.dot"])
    }

    /// A folder that cannot be written: one error line naming the picture
    /// and the reason, nothing on stdout (no summary, no `Wrote`).
    func testAnUnwritableFolderIsOneError() throws {
        let folder = try temporaryFolder()
        let model = try copy(fixtures + "coreml/builder_classifier.mlmodel", to: folder, as: "Net.mlmodel")
        // /sys refuses new files even to root.
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "dot", "--graph-output", "/sys/Net.dot"],
                                         "/sys/Net.dot: cannot create a file in /sys: Permission denied")
        if hasGraphviz {
            try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "png", "--graph-output", "/sys/Net.png"],
                                             "/sys/Net.png: cannot create a file in /sys: Permission denied")
        }
        // Next to the model, in a read-only folder (root writes there anyway).
        XCTAssertEqual(chmod(folder.path, 0o555), 0)
        defer { chmod(folder.path, 0o755) }
        guard access(folder.path, W_OK) != 0 else { throw XCTSkip("running as a user who can write to read-only folders (root)") }
        try ProgramRunner.assertOneError("coreml-inspect", [model, "--graph", "dot"], "\(folder.path)/Net.dot: cannot create a file in")
    }

    // MARK: Colours

}
