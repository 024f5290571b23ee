import Foundation
import TestSupport
import XCTest

/// Inputs that used to be taken silently the wrong way (issue 30): a name
/// given twice, a label file's byte-order mark, non-finite array values.
final class InputCheckTests: XCTestCase {
    let fixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures")
    var classifier: URL { fixtures.appendingPathComponent("runtime/classifier") }
    var resnet: String { fixtures.appendingPathComponent("onnx/resnet_opset13/model.onnx").path }
    var vgg: String { fixtures.appendingPathComponent("tensorflow/vgg_head/graph.pb").path }

    func testTheSameInputTwiceIsAUsageError() throws {
        let out = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        let x = classifier.appendingPathComponent("input_x.npy").path
        try ProgramRunner.assertOneError("coreml-predict", [classifier.appendingPathComponent("model.mlmodel").path,
                                                            "--input", "x=\(x)", "--input", "x=\(x)"],
                                         "--input names 'x' twice", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--input-shape", "input=1,3,32,32", "--input-shape", "input=1,3,64,64",
                                                            "-o", out], "--input-shape names 'input' twice", status: 64)
        // TensorFlow's 'input' and 'input:0' are one tensor.
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", vgg, "--input-shape", "input:0=1,32,32,3", "--input-shape", "input=1,64,64,3",
                                                            "-o", out], "--input-shape names 'input:0' and 'input' (one input) twice", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--image-input", "input", "--image-input", "input", "-o", out],
                                         "--image-input names 'input' twice", status: 64)
        try ProgramRunner.assertOneError("coreml-convert", ["tensorflow", vgg, "--input-shape", "input:0=1,32,32,3", "--image-input", "input:0",
                                                            "--image-input", "input", "-o", out],
                                         "--image-input names 'input:0' and 'input' (one input) twice", status: 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// Core ML reads a channelScale of 0 as 1: refused, as is a value that is 0 in float32.
    func testAnImageScaleOfZeroIsRefused() throws {
        let out = try temporaryFolder().appendingPathComponent("m.mlmodel").path
        for scale in ["0", "-0", "1e-50"] {
            try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--image-input", "input", "--image-scale", scale, "-o", out],
                                             "--image-scale \(scale) is 0 in float32, which Core ML reads as unset", status: 64)
        }
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--image-input", "input", "--red-bias", "inf", "-o", out],
                                         "invalid value 'inf' for '--red-bias': expected a finite number", status: 64)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testALabelFileByteOrderMarkIsNotPartOfTheFirstLabel() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt")
        try Data([0xEF, 0xBB, 0xBF] + Array((0..<10).map { "class \($0)" }.joined(separator: "\r\n").utf8)).write(to: labels)
        let output = folder.appendingPathComponent("m.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["onnx", resnet, "--class-labels", labels.path, "-o", output])
        XCTAssertEqual(result.status, 0, result.standardError)
        let inspected = try ProgramRunner.run("coreml-inspect", [output, "--json"])
        XCTAssertEqual(inspected.status, 0, inspected.standardError)
        XCTAssertTrue(inspected.standardOutput.contains("\"class 0\""), inspected.standardOutput)
        XCTAssertFalse(inspected.standardOutput.contains("\u{FEFF}") || inspected.standardOutput.contains("\\ufeff"), inspected.standardOutput)
    }

    func testALabelLineThatIsNotUTF8IsNamedWithItsLine() throws {
        let folder = try temporaryFolder()
        let labels = folder.appendingPathComponent("labels.txt")
        try Data(Array("cat\ndog\n".utf8) + [0x63, 0xE9, 0x0A] + Array("eel\n".utf8)).write(to: labels)
        try ProgramRunner.assertOneError("coreml-convert", ["onnx", resnet, "--class-labels", labels.path,
                                                            "-o", folder.appendingPathComponent("m.mlmodel").path],
                                         "labels.txt:3: not UTF-8 text")
    }

    /// A [4, 3, 5] .npy with NaN at [0, 1, 0] and an infinity after it.
    func testNonFiniteArrayInputsAreRefusedUnlessAllowed() throws {
        let folder = try temporaryFolder()
        let model = classifier.appendingPathComponent("model.mlmodel").path
        let x = try readFloat32Npy(classifier.appendingPathComponent("input_x.npy"))
        var values = x
        values[5] = .nan
        values[7] = .infinity
        let bad = folder.appendingPathComponent("bad.npy")
        try writeFloat32NpyForTest(values, shape: [4, 3, 5], to: bad)
        try ProgramRunner.assertOneError("coreml-predict", [model, "--input", "x=\(bad.path)"],
                                         "input 'x' holds nan at index 5 [0, 1, 0] (and 1 more non-finite values)")
        let allowed = try ProgramRunner.run("coreml-predict", [model, "--input", "x=\(bad.path)", "--allow-non-finite"])
        XCTAssertEqual(allowed.status, 0, allowed.standardError)
    }
}

/// A float32 .npy file (format 1.0, C order) of `values` with `shape`.
func writeFloat32NpyForTest(_ values: [Float], shape: [Int], to url: URL) throws {
    let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
    var header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shapeText), }"
    while (10 + header.utf8.count + 1) % 64 != 0 { header += " " }
    header += "\n"
    var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
    data.append(contentsOf: Array(header.utf8))
    for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
    try data.write(to: url)
}
