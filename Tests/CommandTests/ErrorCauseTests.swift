import Foundation
import TestSupport
import XCTest

/// Errors that blamed the wrong thing or showed internals (issue 31): each
/// ends with one `error:` line naming the file and place that caused it,
/// and no Swift debug description (`image(ModelFormat.ImageInput(...))`,
/// `system(8)`) reaches a user.
final class ErrorCauseTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples")

    func sample(_ name: String) -> String { samples.appendingPathComponent(name).path }

    func ageNet(_ extra: [String], output: String) -> [String] {
        ["caffe", sample("deploy_age.prototxt"), sample("age_net.caffemodel"), "--image-input", "data"] + extra + ["-o", output]
    }

    /// Swift's spellings of enums and structs that a message must never show.
    func assertNoDebugText(_ text: String, line: UInt = #line) {
        for spelling in ["ModelFormat.", "(shape:", "ImageInput(", "Optional(", "system(", "Failure(", "Error(", "FileIO."] {
            XCTAssertFalse(text.contains(spelling), "'\(spelling)' in: \(text)", line: line)
        }
    }

    /// Was: `deploy_age.prototxt: class label 'b' appears twice (labels 2 and 4)`; the deploy file holds no labels.
    func testADuplicateClassLabelNamesTheLabelsFileAndBothLines() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt").path
        try "a\r\nb\r\nc\r\nb\r\ne\r\nf\r\ng\r\nh\r\n".write(toFile: labels, atomically: false, encoding: .utf8)
        let output = folder.appendingPathComponent("m.mlmodel").path
        try ProgramRunner.assertOneError("coreml-convert", ageNet(["--class-labels", labels], output: output),
                                         "error: \(labels):4: label 'b' is also on line 2: each class needs a label of its own")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["labels.txt"])
        // Too few labels: the labels file is the place (was `deploy_age.prototxt: labels.txt: 2 class labels, ...`).
        try "a\nb\n".write(toFile: labels, atomically: false, encoding: .utf8)
        try ProgramRunner.assertOneError("coreml-convert", ageNet(["--class-labels", labels], output: output),
                                         "error: \(labels): 2 class labels, but the last layer 'prob' of \(sample("deploy_age.prototxt")) gives 8 values")
    }

    /// A tiny Darknet network (one 1x1 convolution) whose bias and weight are given.
    func darknet(bias: Float, weight: Float, in folder: URL) throws -> (config: String, weights: String) {
        let config = folder.appendingPathComponent("net.cfg"), weights = folder.appendingPathComponent("net-\(weight).weights")
        try "[net]\nwidth=2\nheight=2\nchannels=1\n\n[convolutional]\nfilters=1\nsize=1\nstride=1\nactivation=linear\n"
            .write(to: config, atomically: false, encoding: .utf8)
        var bytes = Data()
        for word in [Int32(0), 2, 0] { withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) } }
        withUnsafeBytes(of: Int64(0)) { bytes.append(contentsOf: $0) }  // images seen (minor version 2: 64 bits)
        for value in [bias, weight] { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        try bytes.write(to: weights)
        return (config.path, weights.path)
    }

    /// Was: `layer 'conv_0': the weight value 70000.0 is beyond float16's range`, naming no file or field.
    func testPrecisionErrorsNameTheFileTheLayerAndTheWeight() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("half.mlmodel").path
        let big = try darknet(bias: 0.5, weight: 70000, in: folder)
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", big.config, big.weights, "--precision", "float16", "-o", output],
                                         "error: \(output): layer 'conv_0', its weights: value 1 of 1 is 70000.0, beyond float16's range (largest 65504)")
        let nan = try darknet(bias: .nan, weight: 1, in: folder)
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", nan.config, nan.weights, "--quantize-weights", "8", "-o", output],
                                         "error: \(output): layer 'conv_0', its bias: cannot be quantized: value 1 of 1 is nan")
        // A float32 model converted again to float16: the same, naming the file written.
        let float = folder.appendingPathComponent("float.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["darknet", big.config, big.weights, "-o", float, "-q"]).status, 0)
        try ProgramRunner.assertOneError("coreml-convert", ["mlmodel", float, "--precision", "float16", "-o", output],
                                         "error: \(output): layer 'conv_0', its weights: value 1 of 1 is 70000.0")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".") }, [], "a temporary was left")
    }

    /// Was: `image(ModelFormat.ImageInput(width: 227, ...))`; a repeated name is a usage error, and an
    /// input that cannot be an image is described by its shape.
    func testImageInputMistakesShowNoSwiftDebugText() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("m.mlmodel").path
        let twice = try ProgramRunner.run("coreml-convert", ageNet(["--image-input", "data"], output: output))
        XCTAssertEqual(twice.status, 64, twice.standardError)
        XCTAssertTrue(twice.standardError.hasPrefix("error: --image-input names 'data' twice: give each input once\n"), twice.standardError)
        assertNoDebugText(twice.standardError)
        let encoder = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx/encoder_opset14/model.onnx").path
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", encoder, "--image-input", "input", "-o", output],
                                         "input 'input' cannot be an image: its shape [1, 12, 32] (a rank-3 tensor input) is not [1 or 3, H, W]")
        assertNoDebugText(try ProgramRunner.run("coreml-convert", ["onnx", encoder, "--image-input", "input", "-o", output]).standardError)
    }

    /// An ONNX model of one Relu whose input `x` has `dims` (a String: a symbolic size), written as protobuf by hand.
    func onnxModel(dims: [Any], in folder: URL, named name: String) throws -> String {
        func varint(_ value: Int) -> [UInt8] {
            var value = UInt64(value), bytes: [UInt8] = []
            repeat {
                bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
                value >>= 7
            } while value > 0
            return bytes
        }
        func number(_ field: Int, _ value: Int) -> [UInt8] { varint(field << 3) + varint(value) }
        func message(_ field: Int, _ bytes: [UInt8]) -> [UInt8] { varint(field << 3 | 2) + varint(bytes.count) + bytes }
        func text(_ field: Int, _ string: String) -> [UInt8] { message(field, Array(string.utf8)) }
        let shape = dims.flatMap { dim in message(1, dim is String ? text(2, dim as! String) : number(1, dim as! Int)) }
        let tensorType = number(1, 1) + message(2, shape)  // float, shape
        let input = text(1, "x") + message(2, message(1, tensorType))
        let output = text(1, "y") + message(2, message(1, number(1, 1)))
        let node = text(1, "x") + text(2, "y") + text(3, "relu") + text(4, "Relu")
        let graph = message(1, node) + text(2, "g") + message(11, input) + message(12, output)
        let model = number(1, 7) + message(7, graph) + message(8, number(2, 13))  // IR 7, opset 13
        let path = folder.appendingPathComponent(name).path
        try Data(model).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Was: `give every size, batch 1, with --input x=1,3,224,224` also when every size was given.
    func testTheONNXInputHintAsksOnlyForTheOpenSizes() throws {
        let folder = try temporaryFolder()
        let output = folder.appendingPathComponent("m.mlmodel").path
        let open = try onnxModel(dims: ["batch", 3, "h", "w"], in: folder, named: "open.onnx")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", open, "-o", output],
                                         "error: \(open): input 'x' has the shape [1, 3, ?, ?]: the sizes at axes 2, 3 are open: "
                                         + "give them, batch 1, with --input-shape x=1,3,?,? (each ? a size)")
        let oneOpen = try onnxModel(dims: [1, 3, 8, "w"], in: folder, named: "one.onnx")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", oneOpen, "-o", output],
                                         "the size at axis 3 is open: give it, batch 1, with --input-shape x=1,3,8,? (each ? a size)")
        // Every size given, one too large: that size is named, not every size asked for.
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", open, "--input-shape", "x=1,3,2000000,8", "-o", output],
                                         "error: --input-shape x: the shape [1, 3, 2000000, 8]: size 2000000 at axis 2 is not 1 to 1048576", status: 64)
        let rank6 = try onnxModel(dims: [1, 1, 1, 1, 1, 2], in: folder, named: "rank6.onnx")
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", rank6, "-o", output],
                                         "error: \(rank6): input 'x' has the shape [1, 1, 1, 1, 1, 2]: rank 6 is not converted (inputs of rank 2 to 5 are")
        let result = try ProgramRunner.run("coreml-convert", ["onnx", open, "--input-shape", "x=1,3,8,8", "-o", output, "-q"])
        XCTAssertEqual(result.status, 0, result.standardError)
    }

    /// Darknet and OpenCV read CRLF .cfg files: the same model as from LF, and errors with the right line.
    func testADarknetConfigWithCRLFLineEndingsConverts() throws {
        let folder = try temporaryFolder()
        let (config, weights) = try darknet(bias: 0.5, weight: 2, in: folder)
        let lf = try String(contentsOfFile: config, encoding: .utf8)
        let crlfFolder = folder.appendingPathComponent("crlf")
        try FileManager.default.createDirectory(at: crlfFolder, withIntermediateDirectories: true)
        let crlf = crlfFolder.appendingPathComponent("net.cfg").path  // the same name: the description names it
        try lf.replacingOccurrences(of: "\n", with: "\r\n").write(toFile: crlf, atomically: false, encoding: .utf8)
        let fromLF = folder.appendingPathComponent("lf.mlmodel").path, fromCRLF = folder.appendingPathComponent("crlf.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["darknet", config, weights, "-o", fromLF, "-q"]).status, 0)
        let converted = try ProgramRunner.run("coreml-convert", ["darknet", crlf, weights, "-o", fromCRLF, "-q"])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let description = { (path: String) in try ProgramRunner.run("coreml-inspect", [path, "--layers"]).standardOutput }
        XCTAssertEqual(try description(fromCRLF).replacingOccurrences(of: fromCRLF, with: ""),
                       try description(fromLF).replacingOccurrences(of: fromLF, with: ""))
        try lf.replacingOccurrences(of: "activation=linear", with: "activation=nosuch").replacingOccurrences(of: "\n", with: "\r\n")
            .write(toFile: crlf, atomically: false, encoding: .utf8)
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", crlf, weights, "-o", fromCRLF],
                                         "error: \(crlf):6: [convolutional] activation=nosuch is not converted yet")
        XCTAssertFalse(try ProgramRunner.run("coreml-convert", ["darknet", crlf, weights, "-o", fromCRLF]).standardError.contains("\\r"))
        // Carriage returns alone (which Darknet reads as one line) are named, not quoted as the whole file.
        try lf.replacingOccurrences(of: "\n", with: "\r").write(toFile: crlf, atomically: false, encoding: .utf8)
        try ProgramRunner.assertOneError("coreml-convert", ["darknet", crlf, weights, "-o", fromCRLF],
                                         "error: \(crlf):1: lines end in carriage returns alone, which Darknet does not read as line ends")
        // A line of 100,000 characters is quoted in 80.
        try (String(repeating: "x", count: 100_000) + "\n" + lf).write(toFile: crlf, atomically: false, encoding: .utf8)
        let long = try ProgramRunner.run("coreml-convert", ["darknet", crlf, weights, "-o", fromCRLF])
        XCTAssertEqual(long.status, 1)
        XCTAssertEqual(long.standardError, "error: \(crlf):1: '\(String(repeating: "x", count: 77))...' is not key=value\n")
    }

    /// Was: `cannot run Graphviz's dot (/x/dot): system(8)`.
    func testADotThatCannotRunIsNamedWithTheSystemsReason() throws {
        let folder = try temporaryFolder()
        let dot = folder.appendingPathComponent("dot")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0, 1, 2, 3]).write(to: dot)  // an ELF header and nothing else
        XCTAssertEqual(chmod(dot.path, 0o755), 0)
        let result = try ProgramRunner.run("coreml-inspect", [sample("deploy_age.prototxt"), "--graph", "svg", "--graph-output", "-"], environment: ["PATH": folder.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(result.standardError, "error: cannot run Graphviz's dot (\(dot.path)): Exec format error\n")
    }

    /// Garbage and mistakes given to every program: one line each, no Swift internals.
    func testNoMessageShowsSwiftInternals() throws {
        let folder = try temporaryFolder()
        let garbage = folder.appendingPathComponent("garbage.bin").path
        var generator = SystemRandomNumberGenerator()
        try Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: garbage))
        let model = folder.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", model, "-q"]).status, 0)
        let output = folder.appendingPathComponent("out.mlmodel").path
        let runs: [(String, [String])] = [
            ("coreml-convert", ["caffe", garbage, garbage, "-o", output]),
            ("coreml-convert", ["tensorflow", garbage, "-o", output]),
            ("coreml-convert", ["keras", garbage, "-o", output]),
            ("coreml-convert", ["onnx", garbage, "-o", output]),
            ("coreml-convert", ["darknet", garbage, garbage, "-o", output]),
            ("coreml-convert", ["mlmodel", garbage, "-o", output]),
            ("coreml-convert", ageNet(["--class-labels", garbage], output: output)),
            ("coreml-convert", ageNet(["--mean-image", garbage], output: output)),
            ("coreml-convert", ["sample", "--precision", "float16", "--probe", garbage, "-o", output]),
            ("coreml-convert", ["sample", "--precision", "float16", "--probe", "data=" + garbage, "-o", output]),
            ("coreml-inspect", [garbage]),
            ("coreml-inspect", [model, "--graph", "dot", "--graph-output", folder.path]),
            ("coreml-predict", [garbage]),
            ("coreml-predict", [model, garbage]),
            ("coreml-predict", [model, "--input", "data=" + garbage]),
            ("coreml-predict", [model, garbage, "--output-npy", model]),
            ("coreml-generate", [garbage, folder.appendingPathComponent("classes").path]),
            ("coreml-generate", [model, model + "/x"]),
        ]
        for (program, arguments) in runs {
            let result = try ProgramRunner.run(program, arguments)
            XCTAssertNotEqual(result.status, 0, "\(program) \(arguments)")
            XCTAssertEqual(result.standardError.split(separator: "\n").filter { $0.hasPrefix("error: ") }.count, 1,
                           "\(program) \(arguments): \(result.standardError)")
            assertNoDebugText(result.standardError)
        }
    }
}
