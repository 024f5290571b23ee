import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// The runtime on models whose weights coremltools' `quantize_weights`
/// stored as float16 or quantized (Tests/Fixtures/quantization, written by
/// scripts/fixtures/make_quantization_fixtures.py): each output within
/// 1e-4 * max(1, |ref|) of numpy's float64 forward pass on the weights as
/// coremltools itself expands them.
final class CompressedWeightsTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/quantization")
    static let variants: [(name: String, precision: Precision)] = [
        ("float", .float32), ("float16", .float16), ("linear8", .quantized(bits: 8, .linear)), ("linear5", .quantized(bits: 5, .linear)),
        ("linear1", .quantized(bits: 1, .linear)), ("symmetric8", .quantized(bits: 8, .linear)),
        ("lut3", .quantized(bits: 3, .kmeansLookupTable)), ("kmeans4", .quantized(bits: 4, .kmeansLookupTable)),
    ]

    func output(of path: String) throws -> [Float] {
        let network = try Network(try CoreMLReader.read(from: path).model)
        let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("input_x.npy").path)
        let prediction = try network.predict(["x": .array(Tensor(shape: try XCTUnwrap(TensorShape(featureShape: shape)), values: values))])
        return try XCTUnwrap(prediction.outputs["y"]).values
    }

    func testEveryStoredFormMatchesNumpy() throws {
        for (name, precision) in Self.variants {
            let path = folder.appendingPathComponent("\(name).mlmodel").path
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("output_\(name).npy").path).values
            let ours = try output(of: path)
            XCTAssertEqual(ours.count, reference.count, name)
            if let worst = worstMismatch(ours, reference) { XCTFail("\(name): value \(worst.index) is \(worst.ours), numpy \(worst.reference)") }
            // Every weight tensor of the file is stored as the variant says, after a full and a structure-only read.
            for structureOnly in [false, true] {
                let model = try CoreMLReader.read(from: path, structureOnly: structureOnly).model
                let stored = Set(model.nodes.flatMap { $0.operation.weightTensors.map(\.values.storedPrecision) })
                XCTAssertEqual(stored, [precision], "\(name), structure only: \(structureOnly)")
            }
        }
    }

    /// Our own compressed files of the float model run as close to
    /// coremltools' expansion of its own files (bit-identical for the
    /// linear modes, whose bytes scripts/check_mlmodels.py compares).
    func testOurCompressedFilesRunLikeCoremltools() throws {
        let model = try CoreMLReader.read(from: folder.appendingPathComponent("float.mlmodel").path).model
        for (name, precision) in Self.variants where name != "float" && name != "kmeans4" {
            let path = try temporaryFolder().appendingPathComponent("\(name).mlmodel").path
            let requested: Precision = switch name {
            case "symmetric8": .quantized(bits: 8, .linearSymmetric)
            case "lut3": .quantized(bits: 3, .linearLookupTable)
            default: precision
            }
            try CoreMLWriter.write(model, to: path, precision: requested)
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("output_\(name).npy").path).values
            if let worst = worstMismatch(try output(of: path), reference) { XCTFail("\(name): value \(worst.index) is \(worst.ours), numpy \(worst.reference)") }
        }
    }
}
