import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// The writer's float16 and quantized weights: compared field by field with
/// coremltools' `quantize_weights` on the same model (by
/// scripts/check_mlmodels.py, from the expect.json written here), and the
/// rules Core ML's validator sets.
final class WeightCompressionTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization")

    func floatModel() throws -> Model {
        try CoreMLReader.read(from: folder.appendingPathComponent("float.mlmodel").path).model
    }

    /// Writes the float fixture as `precision` into the check folder, with
    /// an expectation that its weights are coremltools' `reference`'s.
    func writeForCheck(_ name: String, _ precision: Precision, like reference: String, mode: String, version: Int) throws -> String {
        let path = checkDirectory.appendingPathComponent("compressed_\(name).mlmodel").path
        try? FileManager.default.removeItem(atPath: path)
        try CoreMLWriter.write(try floatModel(), to: path, precision: precision)
        var like: [String: Any] = ["reference": folder.appendingPathComponent("\(reference).mlmodel").path, "mode": mode]
        if mode == "noWorseError" { like["original"] = folder.appendingPathComponent("float.mlmodel").path }
        let expectation: [String: Any] = ["specificationVersion": version, "weightsLike": like]
        try JSONSerialization.data(withJSONObject: expectation, options: [.sortedKeys])
            .write(to: URL(fileURLWithPath: path.replacingOccurrences(of: ".mlmodel", with: ".expect.json")))
        return path
    }

    func testEveryModeIsWrittenForTheIndependentCheck() throws {
        let cases: [(String, Precision, String, Int)] = [
            ("float16", .float16, "identical", 2), ("linear8", .quantized(bits: 8, .linear), "identical", 3),
            ("linear5", .quantized(bits: 5, .linear), "identical", 3), ("linear1", .quantized(bits: 1, .linear), "identical", 3),
            ("symmetric8", .quantized(bits: 8, .linearSymmetric), "identical", 3),
            ("lut3", .quantized(bits: 3, .linearLookupTable), "identical", 3), ("kmeans4", .quantized(bits: 4, .kmeansLookupTable), "noWorseError", 3),
        ]
        for (name, precision, mode, version) in cases {
            let path = try writeForCheck(name, precision, like: name, mode: mode, version: version)
            let file = try CoreMLReader.read(from: path)
            XCTAssertEqual(file.specificationVersion, version, name)
            let stored = Set(file.model.nodes.flatMap { $0.operation.weightTensors.map(\.values.storedPrecision) })
            let expected: Precision = if case .quantized(let bits, let requested) = precision {
                .quantized(bits: bits, requested.usesLookupTable ? .kmeansLookupTable : .linear)
            } else { precision }
            XCTAssertEqual(stored, [expected], name)
        }
    }

    /// Read back and written again without a precision, a compressed model
    /// keeps its form; k-means tables of at most 2^bits distinct values
    /// are exact, so a lookup-table file is written again to the byte.
    func testACompressedModelKeepsItsPrecision() throws {
        let folder = try temporaryFolder()
        for precision: Precision in [.float16, .quantized(bits: 4, .kmeansLookupTable), .quantized(bits: 8, .linear)] {
            let first = folder.appendingPathComponent("first.mlmodel").path, second = folder.appendingPathComponent("second.mlmodel").path
            try CoreMLWriter.write(try floatModel(), to: first, precision: precision)
            try CoreMLWriter.write(try CoreMLReader.read(from: first).model, to: second)
            let stored = Set(try CoreMLReader.read(from: second).model.nodes.flatMap { $0.operation.weightTensors.map(\.values.storedPrecision) })
            XCTAssertEqual(stored, [precision], "\(precision)")
            if precision != .quantized(bits: 8, .linear) {
                XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: first)), try Data(contentsOf: URL(fileURLWithPath: second)), "\(precision)")
            }
        }
    }

    /// Only the fields Core ML reads quantized are quantized: a PReLU's
    /// slopes stay float32, and float16 when asked for float16.
    func testLayersCoreMLCannotReadQuantizedStayFloat() throws {
        var model = try floatModel()
        let index = try XCTUnwrap(model.nodes.firstIndex { $0.name == "relu1" })
        model.nodes[index].operation = .activation(.prelu(alpha: Weights([Float](repeating: 0.25, count: 6))))
        let path = try temporaryFolder().appendingPathComponent("prelu.mlmodel").path
        try CoreMLWriter.write(model, to: path, precision: .quantized(bits: 8, .linear))
        let read = try CoreMLReader.read(from: path).model
        guard case .activation(.prelu(let alpha)) = read.nodes[index].operation else { return XCTFail("no PReLU") }
        XCTAssertEqual(alpha.storedPrecision, .float32)
        XCTAssertEqual(alpha.values, [Float](repeating: 0.25, count: 6))
        XCTAssertEqual(read.nodes[0].operation.weightTensors[0].values.storedPrecision, .quantized(bits: 8, .linear))
    }

    /// A weight float16 cannot hold is an error naming the layer, and no
    /// file is left; a NaN among weights to quantize, likewise.
    func testValuesACompressedFormCannotHoldAreRefused() throws {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("out.mlmodel").path
        for (value, precision, words) in [(Float(65520), Precision.float16, "beyond float16's range"),
                                          (.nan, .quantized(bits: 8, .linear), "cannot be quantized"),
                                          (.infinity, .quantized(bits: 4, .kmeansLookupTable), "cannot be quantized")] {
            var model = try floatModel()
            guard case .innerProduct(var product) = model.nodes[10].operation else { return XCTFail("node 10 is \(model.nodes[10].name)") }
            var values = product.weights.values
            values[7] = value
            product.weights = Weights(values)
            model.nodes[10].operation = .innerProduct(product)
            XCTAssertThrowsError(try CoreMLWriter.write(model, to: path, precision: precision), "\(value)") { error in
                XCTAssertTrue("\(error)".contains("layer 'fc'") && "\(error)".contains(words), "\(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path))
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no temporary file left")
        }
        for precision: Precision in [.quantized(bits: 0, .linear), .quantized(bits: 9, .kmeansLookupTable), .quantized(bits: 4, .linearSymmetric)] {
            XCTAssertThrowsError(try CoreMLWriter.write(try floatModel(), to: path, precision: precision), "\(precision)") { error in
                XCTAssertTrue("\(error)".contains("1 to 8 bits"), "\(error)")
            }
        }
        // 65504, float16's largest value, and infinity itself are kept as they are.
        var model = try floatModel()
        guard case .innerProduct(var product) = model.nodes[10].operation else { return XCTFail() }
        var values = product.weights.values
        (values[0], values[1]) = (65504, -.infinity)
        product.weights = Weights(values)
        model.nodes[10].operation = .innerProduct(product)
        try CoreMLWriter.write(model, to: path, precision: .float16)
        guard case .innerProduct(let read) = try CoreMLReader.read(from: path).model.nodes[10].operation else { return XCTFail() }
        XCTAssertEqual(Array(read.weights.values[0..<2]), [65504, -.infinity])
    }
}

/// Quantized weights that break Core ML's rules (made by
/// make_quantization_fixtures.py from coremltools' own 8-bit file): one
/// error naming the layer and what is wrong, for full and structure-only
/// reads alike.
final class MalformedQuantizationTests: XCTestCase {
    func testEachBrokenRuleIsOneClearError() throws {
        let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization")
        let cases = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("malformed.json"))) as? [String: String])
        XCTAssertEqual(cases.count, 7)
        for (name, words) in cases {
            for structureOnly in [false, true] {
                XCTAssertThrowsError(try CoreMLReader.read(from: folder.appendingPathComponent("bad_\(name).mlmodel").path, structureOnly: structureOnly)) { error in
                    let message = "\(error)"
                    XCTAssertTrue(message.contains(words) && message.contains(name == "prelu" ? "layer 'relu1'" : "layer 'fc'"), "\(name): \(message)")
                }
            }
        }
    }
}
