import Foundation
import TestSupport
import XCTest

final class ConvertInspectTests: XCTestCase {
    func testConvertSampleWritesTheModelAndPrintsItsSummary() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Sample.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", ["sample", "-o", path])
        XCTAssertEqual(result.status, 0, result.standardError)
        XCTAssertEqual(result.standardError, "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        try assertSnapshot(result.standardOutput.replacingOccurrences(of: path, with: "<out>"), named: "convert-sample")
    }

    func testInspectLayersOfTheSample() throws {
        let path = try temporaryFolder().appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", path]).status, 0)
        let result = try ProgramRunner.run("coreml-inspect", ["--layers", path])
        XCTAssertEqual(result.status, 0, result.standardError)
        try assertSnapshot(result.standardOutput, named: "inspect-layers-sample")
    }

    func testFailuresAreOneLineWithExitOne() throws {
        let folder = try temporaryFolder()
        let sample = folder.appendingPathComponent("Sample.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["sample", "-o", sample]).status, 0)
        let truncated = folder.appendingPathComponent("truncated.mlmodel")
        try Data(try Data(contentsOf: URL(fileURLWithPath: sample)).prefix(300)).write(to: truncated)

        let cases: [(String, [String], String)] = [
            ("coreml-inspect", [folder.appendingPathComponent("missing.mlmodel").path], "missing.mlmodel: cannot open: No such file or directory"),
            ("coreml-inspect", [truncated.path], "truncated.mlmodel: byte "),
            ("coreml-inspect", [folder.path], "not a regular file"),
            ("coreml-convert", ["sample", "-o", folder.appendingPathComponent("no/such/folder/x.mlmodel").path], "no/such/folder"),
        ]
        for (program, arguments, fragment) in cases {
            let result = try ProgramRunner.run(program, arguments)
            XCTAssertEqual(result.status, 1, "\(program) \(arguments)")
            XCTAssertEqual(result.standardOutput, "")
            let lines = result.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, result.standardError)
            XCTAssertTrue(result.standardError.hasPrefix("error: ") && result.standardError.contains(fragment), result.standardError)
        }
    }

    func testAFailedConversionLeavesAnExistingOutputUntouched() throws {
        // The output folder is read-only: the write must fail without touching the old file.
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Model.mlmodel").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path) }
        if access(folder.path, W_OK) == 0 { throw XCTSkip("running as a user who can write to read-only folders (root)") }
        let result = try ProgramRunner.run("coreml-convert", ["sample", "-o", path])
        XCTAssertEqual(result.status, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data("old".utf8))
    }

    /// The same as root: the file size limit makes the write fail part-way,
    /// for a new file and for one that replaces another (the synced path).
    func testAWriteThatFailsPartWayLeavesNoFileAndTheOldOneUntouched() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("Model.mlmodel").path
        let fresh = try ProgramRunner.run("coreml-convert", ["sample", "-o", path], fileSizeLimit: 16)
        XCTAssertEqual(fresh.status, 1, fresh.standardError)
        XCTAssertTrue(fresh.standardError.hasPrefix("error: \(path): cannot write: File too large"), fresh.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no file, no temporary file")

        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let replacing = try ProgramRunner.run("coreml-convert", ["sample", "-o", path], fileSizeLimit: 16)
        XCTAssertEqual(replacing.status, 1, replacing.standardError)
        XCTAssertEqual(replacing.standardError.split(separator: "\n").count, 1, replacing.standardError)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), Data("old".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["Model.mlmodel"])

        let unlimited = try ProgramRunner.run("coreml-convert", ["sample", "-o", path], fileSizeLimit: 4096)
        XCTAssertEqual(unlimited.status, 0, "the limit, not the command, made them fail: \(unlimited.standardError)")
    }

    func testUsageErrorsExit64WithAHintLine() throws {
        let result = try ProgramRunner.run("coreml-inspect", [])
        XCTAssertEqual(result.status, 64)
        // One error line and one hint, not the whole usage block.
        XCTAssertEqual(result.standardError.split(separator: "\n").last, "see 'coreml-inspect --help' for its usage", result.standardError)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 2, result.standardError)
        let unknown = try ProgramRunner.run("coreml-convert", ["sample", "--outptu", "x"])
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.standardError.contains("--output"), unknown.standardError)
    }

    func testVersionAndHelp() throws {
        // The program's installed name, the version, and what it reads and writes.
        let expected = [
            "coreml-convert": "writes Core ML .mlmodel files, specification version 1 (iOS 11, macOS 10.13, tvOS 11, watchOS 4) to 5",
            "coreml-inspect": "reads Core ML .mlmodel files (neural networks, any specification version)",
            "coreml-predict": "runs Core ML .mlmodel neural networks (any specification version)",
        ]
        for (program, fragment) in expected {
            let version = try ProgramRunner.run(program, ["--version"])
            XCTAssertEqual(version.status, 0)
            XCTAssertTrue(version.standardOutput.hasPrefix("\(program) 0.2.0 (ModelToolkit)\n"), version.standardOutput)
            XCTAssertTrue(version.standardOutput.contains(fragment), version.standardOutput)
        }
        let help = try ProgramRunner.run("coreml-inspect", ["--help"])
        XCTAssertEqual(help.status, 0)
        try assertSnapshot(help.standardOutput, named: "inspect-help")
    }
}
