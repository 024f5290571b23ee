import Foundation
import TestSupport
import XCTest

/// `coreml-convert model.onnx -o M.mlmodel`: the subcommand left out and
/// told by the file's content, never its name.
final class InferredSubcommandTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures").path + "/"

    /// Runs `arguments` without the subcommand, then with it, into two
    /// files: both succeed and print the same summary; the inferred run
    /// says on stderr which subcommand it ran.
    func assertInferred(_ subcommand: String, _ files: [String], explicitFiles: [String]? = nil, _ options: [String] = [],
                        file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = try temporaryFolder()
        let inferredPath = folder.appendingPathComponent("Inferred.mlmodel").path
        let explicitPath = folder.appendingPathComponent("Explicit.mlmodel").path
        let inferred = try ProgramRunner.run("coreml-convert", files + options + ["-o", inferredPath], file: file, line: line)
        XCTAssertEqual(inferred.status, 0, inferred.standardError, file: file, line: line)
        XCTAssertTrue(inferred.standardError.hasPrefix("note: \(files[0]) is "), inferred.standardError, file: file, line: line)
        XCTAssertTrue(inferred.standardError.contains(": running coreml-convert \(subcommand) "), inferred.standardError,
                      file: file, line: line)
        let explicit = try ProgramRunner.run("coreml-convert", [subcommand] + (explicitFiles ?? files) + options + ["-o", explicitPath],
                                             file: file, line: line)
        XCTAssertEqual(explicit.status, 0, explicit.standardError, file: file, line: line)
        XCTAssertEqual(inferred.standardOutput.replacingOccurrences(of: inferredPath, with: explicitPath), explicit.standardOutput,
                       file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: inferredPath)), try Data(contentsOf: URL(fileURLWithPath: explicitPath)),
                       file: file, line: line)
    }

    func testEachFormatIsToldByItsContent() throws {
        try assertInferred("onnx", [fixtures + "onnx/resnet_opset13/model.onnx"])
        let vgg = fixtures + "tensorflow/vgg_head/"
        for graph in ["graph.pb", "graph.pbtxt"] {
            try assertInferred("tensorflow", [vgg + graph], ["--input-shape", "input:0=1,32,32,3", "--output-feature-name", "Identity:0"])
        }
        try assertInferred("keras", [fixtures + "keras/sequential_classifier/model.h5"])
        try assertInferred("mlmodel", [fixtures + "coreml/builder_classifier.mlmodel"], ["--precision", "float16"])
        let age = fixtures + "caffe/age_net_v1/"
        try assertInferred("caffe", [age + "deploy.prototxt", age + "weights.caffemodel"])
        // The weights first: the pair is put in caffe's order.
        try assertInferred("caffe", [age + "weights.caffemodel", age + "deploy.prototxt"],
                           explicitFiles: [age + "deploy.prototxt", age + "weights.caffemodel"])
        let h5 = fixtures + "caffe/resnet_bn_h5/"
        try assertInferred("caffe", [h5 + "weights.caffemodel.h5", h5 + "deploy.prototxt"],
                           explicitFiles: [h5 + "deploy.prototxt", h5 + "weights.caffemodel.h5"])
        let yolo = fixtures + "darknet/tiny_yolo/"
        try assertInferred("darknet", [yolo + "model.cfg", yolo + "model.weights"])
        try assertInferred("darknet", [yolo + "model.weights", yolo + "model.cfg"],
                           explicitFiles: [yolo + "model.cfg", yolo + "model.weights"])
    }

    /// Weights alone, or beside another framework's definition, are
    /// refused as a usage mistake naming what is missing.
    func testWeightsWithoutTheirDefinitionAreRefused() throws {
        let folder = try temporaryFolder()
        let age = fixtures + "caffe/age_net_v1/", yolo = fixtures + "darknet/tiny_yolo/"
        for files in [[age + "weights.caffemodel"], [yolo + "model.weights"], [yolo + "model.weights", age + "deploy.prototxt"],
                      [age + "weights.caffemodel", yolo + "model.cfg"], [yolo + "model.weights", age + "weights.caffemodel"]] {
            let result = try ProgramRunner.run("coreml-convert", files + ["-o", folder.appendingPathComponent("M.mlmodel").path])
            XCTAssertEqual(result.status, 64, "\(files): \(result.standardError)")
            XCTAssertTrue(result.standardError.contains("weights without their network definition"), "\(files): \(result.standardError)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("M.mlmodel").path))
    }

    func testTheContentDecidesNotTheName() throws {
        let folder = try temporaryFolder()
        let disguised = folder.appendingPathComponent("model.h5").path
        try FileManager.default.copyItem(atPath: fixtures + "onnx/resnet_opset13/model.onnx", toPath: disguised)
        let result = try ProgramRunner.run("coreml-convert", [disguised, "-o", folder.appendingPathComponent("M.mlmodel").path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertTrue(result.standardError.contains("is an ONNX model: running coreml-convert onnx"), result.standardError)
    }

    func testQuietAndJSONPrintNoNote() throws {
        let folder = try temporaryFolder()
        for flag in ["--quiet", "--json"] {
            let result = try ProgramRunner.run("coreml-convert", [fixtures + "onnx/resnet_opset13/model.onnx", flag,
                                                                  "-o", folder.appendingPathComponent("M.mlmodel").path])
            XCTAssertEqual(result.status, 0, result.standardError)
            XCTAssertFalse(result.standardError.contains("note:"), flag + ": " + result.standardError)
        }
    }

    /// A PyTorch zip archive (`torch.save` since 1.6): its first entry is `<name>/data.pkl`.
    func pyTorchZip(entry: String) -> Data {
        let name = Array(entry.utf8)
        var header: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0]
        header += [UInt8(name.count & 0xFF), UInt8(name.count >> 8), 0, 0] + name
        // The pickle's bytes: never read, let alone run.
        header += [0x80, 0x02, 0x7D, 0x71, 0x2E]
        return Data(header)
    }

    func testAPyTorchFileGetsTheONNXExportHint() throws {
        let folder = try temporaryFolder()
        let zipped = folder.appendingPathComponent("model.pt").path
        try pyTorchZip(entry: "archive/data.pkl").write(to: URL(fileURLWithPath: zipped))
        // torch.save's legacy format: a pickle opening with PyTorch's magic number.
        let legacy = folder.appendingPathComponent("legacy.pth").path
        try Data([0x80, 0x02, 0x8A, 0x0A, 0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19, 0x2E])
            .write(to: URL(fileURLWithPath: legacy))
        let output = folder.appendingPathComponent("M.mlmodel").path
        let hint = "export it to ONNX first, e.g. torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), \"model.onnx\", "
            + "opset_version=17), then coreml-convert onnx model.onnx ..."
        for path in [zipped, legacy] {
            try ProgramRunner.assertOneError("coreml-convert", [path, "-o", output], "\(path): is a PyTorch model; \(hint)")
            // Given to a converter, the same advice rather than "save a Keras model as .h5".
            try ProgramRunner.assertOneError("coreml-convert", ["onnx", path, "-o", output], "\(path): is a PyTorch model (\(hint))")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        // Another ZIP archive (a Keras 3 .keras file) is not called a PyTorch model.
        let keras3 = folder.appendingPathComponent("model.keras").path
        try pyTorchZip(entry: "config.json").write(to: URL(fileURLWithPath: keras3))
        let result = try ProgramRunner.run("coreml-convert", [keras3, "-o", output])
        XCTAssertEqual(result.status, 64, result.standardError)
        XCTAssertFalse(result.standardError.contains("PyTorch model;"), result.standardError)
    }

    /// A stored ZIP archive of `names` (empty entries), with its central directory and end record.
    func zipArchive(_ names: [String]) -> Data {
        func le(_ value: Int, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var local: [UInt8] = [], central: [UInt8] = []
        for name in names.map({ Array($0.utf8) }) {
            central += [0x50, 0x4B, 0x01, 0x02, 20, 0, 20, 0] + [UInt8](repeating: 0, count: 20) + le(name.count, 2)
                + [UInt8](repeating: 0, count: 12) + le(local.count, 4) + name
            local += [0x50, 0x4B, 0x03, 0x04, 20, 0] + [UInt8](repeating: 0, count: 20) + le(name.count, 2) + [0, 0] + name
        }
        let end: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0] + le(names.count, 2) + le(names.count, 2) + le(central.count, 4)
            + le(local.count, 4) + [0, 0]
        return Data(local + central + end)
    }

    func testTorchScriptIsToldByItsCentralDirectory() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("M.mlmodel").path
        // torch.jit.save writes the tensors first and data.pkl after them.
        let scripted = folder.appendingPathComponent("scripted.pt").path
        try zipArchive(["net/data/0", "net/data/1", "net/data.pkl", "net/code/__torch__/net.py"]).write(to: URL(fileURLWithPath: scripted))
        try ProgramRunner.assertOneError("coreml-convert", [scripted, "-o", output], "\(scripted): is a PyTorch model; export it to ONNX")
        // A ZIP archive without data.pkl, or with its end record pointing past the file: not PyTorch, and no crash.
        let other = folder.appendingPathComponent("other.zip").path
        try zipArchive(["net/data/0", "net/config.json"]).write(to: URL(fileURLWithPath: other))
        try ProgramRunner.assertOneError("coreml-convert", [other, "-o", output], "a ZIP archive", status: 64)
        var broken = zipArchive(["net/data/0", "net/data.pkl"])
        broken.replaceSubrange((broken.count - 6)..<(broken.count - 2), with: [0xFF, 0xFF, 0xFF, 0x7F])
        try broken.write(to: URL(fileURLWithPath: other))
        try ProgramRunner.assertOneError("coreml-convert", [other, "-o", output], "a ZIP archive", status: 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testAnUnknownFileNamesTheSubcommands() throws {
        let folder = try temporaryFolder()
        let notes = folder.appendingPathComponent("notes.txt").path
        try "just some words\n".write(toFile: notes, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("M.mlmodel").path
        let list = "name its format with a subcommand: caffe, tensorflow, keras, darknet, onnx, tflite, mlmodel, sample"
        try ProgramRunner.assertOneError("coreml-convert", [notes, "-o", output], "\(notes): a text file, but not", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", [notes, "-o", output], list, status: 64)
        // Weights alone: which network they belong to is not in them.
        try ProgramRunner.assertOneError("coreml-convert", [fixtures + "caffe/age_net_v1/weights.caffemodel", "-o", output],
                                         "weights without their network definition", status: 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testATypoStillGetsItsDidYouMean() throws {
        let output = try temporaryFolder().appendingPathComponent("M.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ["onx", fixtures + "onnx/resnet_opset13/model.onnx", "-o", output],
                                         "unknown subcommand 'onx'; did you mean 'onnx'?", status: 64)
    }

    /// A mistyped path, a folder or a FIFO in the subcommand's place: the
    /// file's own error, exit 1, as after a subcommand (it was "unknown
    /// subcommand '/data/model.onnx'"), and the FIFO is never opened for reading.
    func testAPathThatIsNoFileSaysSo() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("M.mlmodel").path
        let fifo = folder.appendingPathComponent("model.onnx").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        try ProgramRunner.assertOneError("coreml-convert", [folder.path + "/missing.onnx", "-o", output], "missing.onnx: cannot open: No such file")
        try ProgramRunner.assertOneError("coreml-convert", [fifo, "-o", output], "model.onnx: not a regular file (a FIFO)")
        try ProgramRunner.assertOneError("coreml-convert", [folder.path, "-o", output], "not a regular file (a folder)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testHelpShowsTheInferredForm() throws {
        let help = try ProgramRunner.run("coreml-convert", ["--help"])
        XCTAssertEqual(help.status, 0)
        let lines = help.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.prefix(2).map(String.init), [
            "usage: coreml-convert <subcommand>",
            "       coreml-convert <model file> [<weights file>] <options>   (subcommand told by content)"])
    }
}
