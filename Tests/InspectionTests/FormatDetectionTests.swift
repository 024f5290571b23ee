import ModelFiles
import XCTest

/// Format recognition (ModelFiles' registry of formats known by content),
/// on bytes built here.
final class FormatDetectionTests: XCTestCase {
    func detect(_ bytes: [UInt8]) throws -> DetectedFormat {
        try bytes.withUnsafeBytes { buffer in try FormatDetection.detect(buffer) }
    }

    func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try detect(bytes)
            return nil
        } catch {
            return "\(error)"
        }
    }

    func testBinaryFormatsByTheirFirstFields() throws {
        // Model.specificationVersion = 1, then description (field 2, empty).
        XCTAssertEqual(try detect([0x08, 0x01, 0x12, 0x00]), .coreML)
        // A cut Core ML file is still Core ML (the reader then says where it ends).
        XCTAssertEqual(try detect([0x08, 0x04, 0x12, 0x7F, 0x01]), .coreML)
        // NetParameter: name "n" (field 1, bytes), layer (field 100, bytes, empty).
        XCTAssertEqual(try detect([0x0A, 0x01, 0x6E, 0xA2, 0x06, 0x00]), .caffeModel)
        // V1: layers (field 2) holding name (field 3 of V1LayerParameter) "c".
        XCTAssertEqual(try detect([0x12, 0x03, 0x1A, 0x01, 0x63]), .caffeModel)
        XCTAssertEqual(try detect([0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]), .hdf5)
        // A stray varint field 1 before a graph's nodes (field 1, bytes) is not a Core ML model.
        XCTAssertThrowsError(try detect([0x08, 0x07, 0x0A, 0x02, 0x0A, 0x00, 0x0A, 0x02, 0x0A, 0x00]))
    }

    /// What a program that takes one kind of file says of another kind.
    func testFileKindsNameWhatAFileIsAndLeaveDoubtsToTheReader() throws {
        func check(_ bytes: [UInt8], _ expected: Set<DetectedFormat>) -> String? {
            bytes.withUnsafeBytes { (raw) -> String? in
                do {
                    try FileKind(bytes: raw, path: "f").check(expected: expected, what: "a TensorFlow graph")
                    return nil
                } catch {
                    return "\(error)"
                }
            }
        }
        XCTAssertEqual(check([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [.tensorflowGraph]), "f: is a PNG image, not a TensorFlow graph")
        XCTAssertEqual(check([0x08, 0x01, 0x12, 0x00], [.tensorflowGraph]),
                       "f: is a Core ML model, not a TensorFlow graph: inspect it with coreml-inspect, run it with coreml-predict")
        XCTAssertNil(check([0x08, 0x01], [.tensorflowGraph]), "a Core ML file cut before its description: the reader says where")
        XCTAssertNil(check([0x0A, 0x01, 0x6E, 0xA2, 0x06, 0x00], [.tensorflowGraph]), "a caffemodel reads like a one-node graph")
        XCTAssertNil(check([], [.tensorflowGraph]), "an empty file: the reader says it is empty")
        XCTAssertNil(check([0xFF, 0x00, 0x13], [.tensorflowGraph]), "unknown bytes: the reader says where it fails")
    }

    func testPrototxtIsTextWithLayersOrInputsAtTheTop() throws {
        XCTAssertEqual(try detect(Array("name: \"n\"\ninput: \"data\"\ninput_dim: 1".utf8)), .caffePrototxt)
        XCTAssertEqual(try detect(Array("# comment: layer {\nlayer {\n  name: \"a\" type: \"ReLU\" }\n".utf8)), .caffePrototxt)
        XCTAssertEqual(try detect(Array("layers{name:'x'}".utf8)), .caffePrototxt)
        // `layer` only inside another message, a string or a comment does not count.
        XCTAssertEqual(failure(Array("name: \"layer {\"\n# layer {\nother { layer { } }\n".utf8)),
                       "a text file, but not a Caffe deploy prototxt or a TensorFlow .pbtxt (it has no top-level layer, layers, input or node field)")
    }

    func testEmptyAndUnknownFilesAreNamedAsSuch() {
        XCTAssertEqual(failure([]), "the file is empty")
        XCTAssertTrue(failure([0x00, 0x00, 0x00, 0x07])?.hasPrefix("unknown format") ?? false)
        XCTAssertTrue(failure([0xFF, 0xFE, 0x00, 0x41])?.hasPrefix("unknown format") ?? false)
        XCTAssertTrue(failure(Array("just some words\n".utf8))?.hasPrefix("a text file, but not") ?? false)
    }
}
