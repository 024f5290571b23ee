import Foundation
import TestSupport
import XCTest

/// Was: with stdout on /dev/full or closed (`program >&-`), convert,
/// inspect and predict ended with status 0 and their output lost, and
/// `--help` crashed in Foundation's FileHandle. Now each ends with exit 1
/// and one `error: cannot write to stdout` line on stderr.
final class StandardOutputFailureTests: XCTestCase {
    let samples = repositoryRoot.appendingPathComponent("Samples").path + "/"

    /// Runs `program` through /bin/sh with its stdout redirected as
    /// `redirection` says (`>/dev/full`, `>&-`), stderr collected.
    func run(_ program: String, _ arguments: [String], stdout redirection: String) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let executable = ProgramRunner.productsDirectory.appendingPathComponent(program).path
        process.arguments = ["-c", "exec \"$0\" \"$@\" \(redirection)", executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["NO_COLOR": "1"]) { $1 }
        let errors = Pipe()
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    func testEachProgramSaysItCannotWriteToStdout() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let folder = try temporaryFolder()
        let model = folder.appendingPathComponent("AgeNet.mlmodel").path
        let convert = ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel", "--image-input", "data", "-o", model]
        let runs: [(String, [String])] = [
            ("coreml-convert", convert),
            ("coreml-inspect", [model]),
            ("coreml-inspect", [model, "--json"]),
            ("coreml-inspect", ["--help"]),
            ("coreml-predict", [model, samples + "face.png"]),
            ("coreml-predict", [model, samples + "face.png", "--json"]),
        ]
        for redirection in [">/dev/full", ">&-"] {
            for (program, arguments) in runs {
                let what = "\(program) \(arguments.last ?? "") \(redirection)"
                let result = try run(program, arguments, stdout: redirection)
                XCTAssertEqual(result.status, 1, "\(what): \(result.errors)")
                let lines = result.errors.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, "\(what): \(result.errors)")
                XCTAssertTrue(lines.first?.hasPrefix("error: cannot write to stdout") == true, "\(what): \(result.errors)")
            }
            // The model was written whole before its summary (nothing printed went into it).
            let inspected = try ProgramRunner.run("coreml-inspect", [model])
            XCTAssertEqual(inspected.status, 0, inspected.standardError)
        }
    }

    /// Was: a note or warning written while stderr was /dev/full stopped
    /// the program with SIGILL (Foundation's FileHandle.write). Now the
    /// text is lost and the prediction goes on: exit 0, its file written.
    func testAFullStderrLosesTheNoteOnly() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { throw XCTSkip("no /dev/full") }
        let folder = try temporaryFolder()
        let model = folder.appendingPathComponent("m.mlmodel").path
        let identity = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx/ops/normalize_identity_opset13.onnx").path
        let converted = try ProgramRunner.run("coreml-convert", ["onnx", identity, "--image-input", "input", "-o", model, "-q"])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let input = folder.appendingPathComponent("x.npy")
        try writeFloat32NpyForTest((0..<105).map { Float($0) }, shape: [3, 5, 7], to: input)
        let out = folder.appendingPathComponent("out")
        // The note on an .npy for an image input goes to stderr.
        let result = try run("coreml-predict", [model, "--input", "input=" + input.path, "--output-npy", out.path], stdout: "2>/dev/full")
        XCTAssertEqual(result.status, 0, result.errors)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("output.npy").path))
    }
}
