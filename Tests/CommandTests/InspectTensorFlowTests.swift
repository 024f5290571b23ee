import Foundation
import TestSupport
import XCTest

/// `inspect` on TensorFlow graphs, binary and text, recognised by content.
final class InspectTensorFlowTests: XCTestCase {
    func testBinaryAndTextGraphsSummariseAlike() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/tensorflow/mobilenet_block")
        let copy = try temporaryFolder().appendingPathComponent("graph.bin")  // no telling extension
        try FileManager.default.copyItem(at: folder.appendingPathComponent("graph.pb"), to: copy)
        let binary = try ProgramRunner.run("coreml-inspect", ["--json", copy.path])
        let text = try ProgramRunner.run("coreml-inspect", ["--json", folder.appendingPathComponent("graph.pbtxt").path])
        XCTAssertEqual(binary.status, 0, binary.standardError)
        XCTAssertEqual(text.status, 0, text.standardError)
        func layers(_ output: String) throws -> [String] {
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
            let list = try XCTUnwrap(json["layers"] as? [[String: Any]])
            return list.compactMap { $0["name"] as? String }
        }
        XCTAssertEqual(try layers(binary.standardOutput), try layers(text.standardOutput))
        XCTAssertFalse(try layers(binary.standardOutput).isEmpty)
        let summary = try ProgramRunner.run("coreml-inspect", [copy.path])
        XCTAssertTrue(summary.standardOutput.hasPrefix("Format:       TensorFlow graph\n"), summary.standardOutput)
        XCTAssertTrue(summary.standardOutput.contains("input: multiarray<double,[3,33,33]>"), summary.standardOutput)
    }
}
