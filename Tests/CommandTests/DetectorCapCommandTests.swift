import Foundation
import TestSupport
import XCTest

/// `coreml-convert caffe` on SSD's caps and `--rows-per-class` as a user
/// meets them: a capping nms_param top_k refused in one line naming the
/// flag that accepts it, the flags refused where they cannot apply, and a
/// converted file whose summary and boxes say what it does (the boxes
/// against OpenCV's, make_ssd_fixtures.py's keep_top_k case).
final class DetectorCapCommandTests: XCTestCase {
    let ssd = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/ssd").path + "/"
    let samples = repositoryRoot.appendingPathComponent("Samples").path + "/"

    func testCapsAndRowsPerClassFromTheCommandLine() throws {
        let folder = try temporaryFolder().path + "/"
        let output = folder + "SSD.mlmodel"
        let refused = try ProgramRunner.run("coreml-convert", ["caffe", ssd + "deploy.prototxt", ssd + "weights.caffemodel", "-o", output])
        XCTAssertEqual(refused.status, 1, refused.standardError)
        XCTAssertEqual(refused.standardError.split(separator: "\n").count, 1, refused.standardError)
        XCTAssertTrue(refused.standardError.contains("nms_param top_k 100") && refused.standardError.contains("give --ignore-top-k"),
                      refused.standardError)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        for (flag, words) in [("--rows-per-class", "--rows-per-class applies to a detector"), ("--ignore-top-k", "--ignore-top-k applies to a DetectionOutput")] {
            let result = try ProgramRunner.run("coreml-convert", ["caffe", samples + "deploy_age.prototxt", samples + "age_net.caffemodel", flag, "-o", output])
            XCTAssertNotEqual(result.status, 0, flag)
            XCTAssertTrue(result.standardError.contains(words), "\(flag): \(result.standardError)")
        }
        let converted = try ProgramRunner.run("coreml-convert", ["caffe", ssd + "deploy_keep_top_k.prototxt", ssd + "weights.caffemodel",
                                                                 "--rows-per-class", "-o", output])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        XCTAssertTrue(converted.standardOutput.contains("2592 candidate rows (each box once per class)"), converted.standardOutput)
        XCTAssertTrue(converted.standardOutput.contains("at most 4 boxes kept"), converted.standardOutput)
        let predicted = try ProgramRunner.run("coreml-predict", [output, "--input", "data=" + ssd + "keep_top_k_input.npy", "--json"])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        let json = try JSONSerialization.jsonObject(with: Data(predicted.standardOutput.utf8)) as? [[String: Any]]
        let detections = try XCTUnwrap(json?.first?["detections"] as? [[String: Any]], predicted.standardOutput)
        // keep_top_k_opencv.npy: 4 rows of 6 little-endian float32s, the file's last 96 bytes.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: ssd + "keep_top_k_opencv.npy")).suffix(96)
        let opencv = stride(from: bytes.startIndex, to: bytes.endIndex, by: 4).map { index in
            Float(bitPattern: bytes[index..<index + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) })
        }
        // OpenCV's four scores, the most confident of its 168 boxes.
        XCTAssertEqual(detections.compactMap { $0["confidence"] as? Double }.sorted(),
                       stride(from: 1, to: opencv.count, by: 6).map { Double(opencv[$0]) }.sorted(), accuracy: 1e-4)
    }
}

private func XCTAssertEqual(_ a: [Double], _ b: [Double], accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.count, b.count, "\(a) vs \(b)", file: file, line: line)
    for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: accuracy, "\(a) vs \(b)", file: file, line: line) }
}
