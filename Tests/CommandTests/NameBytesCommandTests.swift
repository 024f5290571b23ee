import Foundation
import TestSupport
import XCTest

/// Names compared after a lossy decode (issue 30): graphs whose names
/// differ only in bytes that are not UTF-8 ('t\xff' and 't\xfe',
/// Tests/Fixtures/names, scripts/fixtures/make_name_bytes_fixtures.py).
/// onnxruntime keeps them apart and computes relu(x) - sigmoid(x); decoded
/// with U+FFFD they were one name. A Core ML name must be UTF-8, so the
/// converter refuses such a name with one line naming it, escaped.
final class NameBytesCommandTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/names")

    func refusal(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let output = try temporaryFolder().appendingPathComponent("M.mlmodel").path
        let result = try ProgramRunner.run("coreml-convert", arguments + ["-o", output], file: file, line: line)
        XCTAssertEqual(result.status, 1, result.standardError, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), file: file, line: line)
        let lines = result.standardError.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, result.standardError, file: file, line: line)
        return String(lines.first ?? "")
    }

    func testONNXNamesThatAreNotUTF8AreRefusedNotMerged() throws {
        let message = try refusal(["onnx", folder.appendingPathComponent("names_not_utf8.onnx").path])
        XCTAssertTrue(message.hasSuffix("names_not_utf8.onnx: node 'r': output name 't\\xff' is not valid UTF-8 "
                                        + "(names are compared as bytes; a Core ML name is UTF-8)"), message)
    }

    func testTensorFlowNamesThatAreNotUTF8AreRefusedAsTensorFlowRefusesThem() throws {
        let message = try refusal(["tensorflow", folder.appendingPathComponent("names_not_utf8.pb").path])
        XCTAssertTrue(message.contains("names_not_utf8.pb: a node's name or input is not valid UTF-8 (byte "), message)
    }
}
