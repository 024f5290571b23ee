import Foundation
import ModelFiles
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

/// The reader and the refusals: plain_cnn changed one field at a time
/// through TensorFlow's own schema code (Tests/Fixtures/tflite/variants,
/// make_tflite_fixtures.py), and the hostile flatbuffers of the malformed
/// corpus (Tests/Fixtures/malformed/tflite, make_malformed_corpus.py).
final class TFLiteReaderTests: XCTestCase {
    let variants = tfliteFixtures.appendingPathComponent("variants")

    func failure(_ path: String) -> String? {
        do {
            _ = try TFLiteConverter.convert(model: path)
            return nil
        } catch let error as TFLiteError {
            return error.message
        } catch {
            return "not a TFLiteError: \(error)"
        }
    }

    /// Files before schema 3a name operators in deprecated_builtin_code
    /// only: the same model (its outputs: TFLiteParityTests).
    func testDeprecatedBuiltinCodeConvertsTheSame() throws {
        let old = try TFLiteConverter.convert(model: variants.appendingPathComponent("deprecated_code.tflite").path)
        let new = try TFLiteConverter.convert(model: tfliteFixtures.appendingPathComponent("plain_cnn/model.tflite").path)
        XCTAssertEqual(old.nodes.map(\.operation.kindName), new.nodes.map(\.operation.kindName))
        XCTAssertFalse(old.nodes.isEmpty)
    }

    func testRefusalsNameWhatIsRefused() throws {
        let cases = [
            ("keep_num_dims.tflite", "operator 12 (FULLY_CONNECTED) writing "),
            ("keep_num_dims.tflite", "keep_num_dims 'true' is not supported"),
            ("sign_bit.tflite", "operator 0 (CONV_2D) writing "),
            ("sign_bit.tflite", "fused_activation_function SIGN_BIT is not supported"),
            ("unsupported_ops.tflite", "2 operators of 2 unsupported op types: BATCH_MATMUL x1 (functional_1_1/sub_1/Sub); GELU x1 ("),
        ]
        for (file, expected) in cases {
            let message = failure(variants.appendingPathComponent(file).path)
            XCTAssertTrue(message?.contains(expected) ?? false, "\(file): \(message ?? "converted")")
        }
    }

    /// One error naming the byte, never a trap or an allocation sized by the file.
    func testHostileFlatbuffersFailWithTheByte() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/malformed/tflite")
        let expected = [
            "deflate_bad_huffman.tflite": "byte 9476: associated file 'labels.txt': the deflate stream is malformed (zlib: invalid code lengths set)",
            "deflate_crc.tflite": "byte 9472: associated file 'labels.txt' has the CRC-32 0xe6d49a93, and its directory entry states 0x0",
            "deflate_far_back.tflite": "byte 9474: associated file 'labels.txt': the deflate stream is malformed (zlib: invalid distance too far back)",
            "deflate_past_size.tflite": "byte 9502: associated file 'labels.txt': the deflate stream inflates past the entry's stated size of 10 bytes",
            "deflate_short.tflite": "byte 9537: associated file 'labels.txt': the deflate stream ends after 78 bytes, and the entry states 200",
            "deflate_stored_too_long.tflite": "byte 9487: associated file 'labels.txt': the deflate stream is cut short: it needs more than the entry's 15 "
                + "compressed bytes",
            "field_outside_table.tflite": "byte 16: field 2 of the Model table lies at 65520, outside the table's 32 bytes",
            "huge_vector.tflite": "the subgraph list says it holds 4294967280 elements of 4 bytes",
            "root_out_of_range.tflite": "byte 2147483632: the Model table lies past the end of the file (8540 bytes)",
            "self_offset.tflite": "the offset of the subgraph list is 0: it refers to itself",
            "truncated.tflite": "lies past the end of the file (4270 bytes)",
            "vtable_cycle.tflite": "the vtable of subgraph 0 operator 0 has the size 0",
        ]
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(files, expected.keys.sorted())
        for file in files {
            let message = failure(folder.appendingPathComponent(file).path)
            XCTAssertTrue(message?.contains(expected[file]!) ?? false, "\(file): \(message ?? "converted")")
            XCTAssertTrue(message?.contains(": byte ") ?? false, "\(file): \(message ?? "converted")")
        }
    }

    func testNotATFLiteFile() throws {
        let path = try temporaryFolder().appendingPathComponent("model.tflite").path
        _ = FileManager.default.createFile(atPath: path, contents: Data([8, 0, 0, 0, 0x54, 0x46, 0x4C, 0x32, 0, 0, 0, 0]))
        XCTAssertEqual(failure(path), "\(path): not a TFLite model: the file identifier at bytes 4-8 is not \"TFL3\"")
    }

    func testDetectedByContent() throws {
        let path = tfliteFixtures.appendingPathComponent("mobilenet_block/model.tflite").path
        XCTAssertEqual(try ModelFiles.detect(path), .tflite)
        XCTAssertNoThrow(try Frontend.tflite.require(path))
        XCTAssertThrowsError(try Frontend.onnx.require(path))
    }

    /// The outline of a model that does not convert lists every unsupported operator.
    func testOutlineListsEveryObstacle() throws {
        let outline = try TFLiteConverter.outline(model: variants.appendingPathComponent("unsupported_ops.tflite").path)
        XCTAssertEqual(outline.obstacles.compactMap(\.op).sorted(), ["BATCH_MATMUL", "GELU"])
        XCTAssertEqual(outline.nodes.count, 15)
        XCTAssertEqual(outline.inputs.first?.shape, ["1", "20", "18", "3"])
    }
}
