import CoreMLBackend
import FileIO
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Bad `.mlmodel` files: each is one clear error naming the file and the
/// byte offset, never a crash.
final class MalformedFileTests: XCTestCase {
    /// Minimal protobuf encoding for hand-made inputs.
    enum Wire {
        static func varint(_ value: UInt64) -> [UInt8] {
            var value = value, bytes: [UInt8] = []
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7f) | 0x80)
                value >>= 7
            }
            return bytes + [UInt8(value)]
        }
        static func field(_ number: UInt64, varint value: UInt64) -> [UInt8] { varint(number << 3) + varint(value) }
        static func field(_ number: UInt64, bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }
        static func field(_ number: UInt64, string: String) -> [UInt8] { field(number, bytes: Array(string.utf8)) }
    }

    /// Model.description with one 8x8 RGB image input named "x".
    static let description: [UInt8] = {
        let image = Wire.field(1, varint: 8) + Wire.field(2, varint: 8) + Wire.field(3, varint: 20)
        let input = Wire.field(1, string: "x") + Wire.field(3, bytes: Wire.field(4, bytes: image))
        return Wire.field(2, bytes: Wire.field(1, bytes: input))
    }()

    func read(_ bytes: [UInt8]) throws -> CoreMLFile {
        let url = try temporaryFolder().appendingPathComponent("bad.mlmodel")
        try Data(bytes).write(to: url)
        return try CoreMLReader.read(from: url.path)
    }

    func assertError(_ bytes: [UInt8], offset: Int, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try read(bytes), "expected: \(fragment)", file: file, line: line) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("bad.mlmodel: byte \(offset): "), "offset: \(text)", file: file, line: line)
            XCTAssertTrue(text.contains(fragment), "message: \(text)", file: file, line: line)
            XCTAssertFalse(text.contains("\n"), "one line: \(text)", file: file, line: line)
        }
    }

    func testTable() {
        let layerWithoutParams = Wire.field(1, string: "mystery") + Wire.field(2, string: "x") + Wire.field(3, string: "y")
        let network = { (layer: [UInt8]) in Wire.field(500, bytes: Wire.field(1, bytes: layer)) }
        let withLayer = Wire.field(1, varint: 1) + Self.description + network(layerWithoutParams)
        let withClassifier = Wire.field(1, varint: 1) + Self.description + Wire.field(403, bytes: [])
        let cases: [(String, [UInt8], Int, String)] = [
            ("empty file", [], 0, "no description"),
            ("wrong wire type", [0x0A, 0x01, 0x00], 0, "wire type 2 does not fit int32 field specificationVersion"),
            ("absurd length", [0x12] + Wire.varint(0xFFFF_FFFF), 1, "length 4294967295 runs past the end"),
            ("truncated varint", [0x08, 0x80], 1, "truncated varint"),
            ("field number zero", [0x00, 0x01], 0, "invalid field number 0"),
            ("group wire type", [0x7B], 0, "groups are not supported"),
            ("wire type 7", [0x0F], 0, "invalid wire type 7"),
            ("missing description", Wire.field(1, varint: 1), 0, "no description"),
            ("missing network", Wire.field(1, varint: 1) + Self.description, 0, "not a neural network"),
            // Semantic errors point at the start of the message concerned.
            ("layer without parameters", withLayer, withLayer.count - layerWithoutParams.count,
             "layer 'mystery' has a layer type this toolkit does not support"),
            ("classifier without labels", withClassifier, withClassifier.count, "no class labels"),
        ]
        for (name, bytes, offset, fragment) in cases {
            assertError(bytes, offset: offset, "\(fragment)")
            _ = name
        }
    }

    /// A layer's enum field with a number past its cases (pooling type,
    /// unary function, slice axis) is named, at the layer's parameters.
    func testUnknownLayerEnumCasesAreNamed() {
        let cases: [(params: UInt64, field: UInt64, fragment: String)] = [
            (120, 1, "unknown pooling type 9"), (220, 1, "unknown unary function 9"), (350, 4, "unknown slice axis 9"),
        ]
        for (params, field, fragment) in cases {
            let payload = Wire.field(field, varint: 9)
            let layer = Wire.field(1, string: "l") + Wire.field(2, string: "x") + Wire.field(3, string: "y") + Wire.field(params, bytes: payload)
            let bytes = Wire.field(1, varint: 1) + Self.description + Wire.field(500, bytes: Wire.field(1, bytes: layer))
            assertError(bytes, offset: bytes.count - payload.count, "layer 'l' has the \(fragment)")
        }
    }

    func testUnknownColorSpaceIsNamed() {
        var bytes = Wire.field(1, varint: 1) + Self.description
        // colorSpace 20 (RGB) -> 21: the byte after the field 3 tag of ImageFeatureType.
        let index = bytes.lastIndex(of: 20)!
        bytes[index] = 21
        XCTAssertThrowsError(try read(bytes + Wire.field(500, bytes: []))) { error in
            XCTAssertTrue("\(error)".contains("unknown color space 21"), "\(error)")
        }
    }

    func testEveryTruncationOfARealFileIsAnErrorNotACrash() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("whole.mlmodel").path
        try CoreMLWriter.write(EveryLayerModel.make(), to: path)
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var failures = 0
        for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 1500)) {
            do {
                _ = try read(Array(whole.prefix(length)))
            } catch is ModelFileError {
                failures += 1
            }
        }
        XCTAssertGreaterThan(failures, 0)
    }

    func testRandomByteFlipsNeverCrash() throws {
        let path = try temporaryFolder().appendingPathComponent("whole.mlmodel").path
        try CoreMLWriter.write(EveryLayerModel.make(), to: path)
        let whole = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var random = SplitMix64(seed: 7)
        for _ in 0..<400 {
            var bytes = whole
            let index = Int(random.next() % UInt64(bytes.count))
            bytes[index] ^= UInt8(truncatingIfNeeded: random.next() | 1)
            if let file = try? read(bytes) {
                _ = try? file.model.validate()  // decoded models may still be nonsense; that is validate's job
            }
        }
    }
}
