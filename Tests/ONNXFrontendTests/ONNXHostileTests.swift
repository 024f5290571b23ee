import Foundation
import ONNXFrontend
import TestSupport
import XCTest

/// Files the reader must refuse, each with one error saying why
/// (scripts/fixtures/make_onnx_op_fixtures.py writes them): external data
/// that leads out of the model's folder (a parent path, an absolute path,
/// a symbolic link), offsets and lengths past the file, giant dimensions,
/// short payloads, an unsupported opset, a dangling name, a huge reshape,
/// a cut file.
final class ONNXHostileTests: XCTestCase {
    static let cases: [(file: String, message: String)] = [
        ("escape_parent", "external data location '../ops/external_data.bin' is not a file in the model's folder"),
        ("escape_absolute", "external data location '/etc/hostname' is not a file in the model's folder"),
        ("escape_symlink", "external data location 'outside_link.bin' leads outside the model's folder"),
        ("offset_past_end", "external data at offset 1099511627776, 12 bytes, runs past the end of data.bin (48 bytes)"),
        ("length_past_end", "external data at offset 40, 12 bytes, runs past the end of data.bin (48 bytes)"),
        ("missing_file", "no_such.bin: No such file or directory"),
        ("offset_not_a_number", "external data offset '-5' is not a byte count"),
        ("giant_dims", "shape [1099511627776, 3, 1, 1] is invalid or too large"),
        ("raw_data_too_short", "shape [1, 3, 1, 1] needs 12 bytes, raw_data holds 8"),
        ("conv_group_2p63", "weights [1, 3, 1, 1] in 9223372036854775807 groups do not fit 3 input channels"),
        ("opset_8", "opset 8 is not supported (opsets 9 to 21)"),
        ("reads_unknown_name", "node 'y' (Relu): reads 'nowhere', which no earlier node or initializer gives"),
        ("reshape_huge", "node 'y' (Reshape): the shape holds 4.611686018427388e+18, not an integer of a usable size"),
        ("truncated", "byte 20: length 27436 runs past the end of its message"),
    ]

    func testEachIsRefusedWithItsReason() throws {
        let folder = onnxFixtures.appendingPathComponent("hostile")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("outside_link.bin").path),
                       "../ops/external_data.bin")
        for (file, message) in Self.cases {
            let path = folder.appendingPathComponent("\(file).onnx").path
            XCTAssertThrowsError(try ONNXConverter.convert(model: path), file) { error in
                XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(file): \(error)")
                XCTAssertTrue("\(error)".contains(message), "\(file): \(error)")
                XCTAssertFalse("\(error)".contains("\n"), "\(file): \(error)")
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".onnx") }
        XCTAssertEqual(files.count, Self.cases.count, "every hostile file has its case")
    }
}
