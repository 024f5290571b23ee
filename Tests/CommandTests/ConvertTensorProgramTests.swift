import Foundation
import TestSupport
import XCTest

/// `coreml-convert onnx ... --convert-to mlprogram` for models with tensor
/// (rank-N) inputs: each fixture written as a package, read back and run by
/// coreml-predict, against onnxruntime's output in the fixture (its
/// script's) at 1e-4 * max(1, |ref|). Together they hold every rank-N
/// lowering: reshape, transpose, concat, softmax, slice_by_index, the
/// reductions, matmul of two tensors and by a constant, layer_norm, gelu,
/// constants, broadcasting add and mul, and the map operations
/// (conv, pooling, batch norm) on [1, C, H, W] tensors. (The torchvision
/// models: scripts/verify/mlprogram_tensors.sh.)
final class ConvertTensorProgramTests: XCTestCase {
    /// The model under Tests/Fixtures/onnx, its input's name, and each output's file with its reference.
    static let cases: [(model: String, input: String, outputs: [(file: String, reference: String)])] = [
        ("shuffle_opset13/model.onnx", "input", [("output.npy", "shuffle_opset13/output.npy")]),
        ("mixed_opset13/model.onnx", "input", [("output.npy", "mixed_opset13/output.npy")]),
        ("vit_opset17/model.onnx", "input", [("output.npy", "vit_opset17/output.npy")]),
        ("encoder_opset14/model.onnx", "input", [("output.npy", "encoder_opset14/output.npy")]),
        ("ops/split_tensor_opset13.onnx", "x", [("y.npy", "ops/split_tensor_opset13_output.npy"), ("y1.npy", "ops/split_tensor_opset13_output_y1.npy")]),
        ("ops/reducemin_tensor_opset18.onnx", "x", [("y.npy", "ops/reducemin_tensor_opset18_output.npy")]),
        ("ops/reduceprod_tensor_opset18.onnx", "x", [("y.npy", "ops/reduceprod_tensor_opset18_output.npy")]),
        ("ops/reducesum_tensor_opset18.onnx", "x", [("y.npy", "ops/reducesum_tensor_opset18_output.npy")]),
        ("ops/reducemax_channels_keepdims0_opset18.onnx", "x", [("y.npy", "ops/reducemax_channels_keepdims0_opset18_output.npy")]),
        ("ops/layernorm_opset17.onnx", "x", [("y.npy", "ops/layernorm_opset17_output.npy")]),
        ("ops/softmax_vector_opset13.onnx", "x", [("y.npy", "ops/softmax_vector_opset13_output.npy")]),
        // GELU (exact, then its tanh approximation) on a map.
        ("ops/gelu_opset20.onnx", "x", [("y.npy", "ops/gelu_opset20_output.npy")]),
        ("ops/cumsum_last_opset14.onnx", "x", [("y.npy", "ops/cumsum_last_opset14_output.npy")]),
        ("ops/cumsum_exclusive_reverse_opset14.onnx", "x", [("y.npy", "ops/cumsum_exclusive_reverse_opset14_output.npy")]),
        // A map model whose flatten reads the input's [1, C, H, W] view: it was read back without the flatten.
        ("ops/flatten_by_shape_opset13.onnx", "x", [("y.npy", "ops/flatten_by_shape_opset13_output.npy")]),
    ]

    func testTensorModelsArePredictedAsOnnxruntimeComputesThem() throws {
        let onnx = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx")
        let folder = try temporaryFolder()
        for (index, test) in Self.cases.enumerated() {
            let model = onnx.appendingPathComponent(test.model)
            let input = test.model.hasSuffix("/model.onnx") ? model.deletingLastPathComponent().appendingPathComponent("input.npy")
                : onnx.appendingPathComponent(test.model.replacingOccurrences(of: ".onnx", with: "_input.npy"))
            let package = folder.appendingPathComponent("M\(index).mlpackage").path
            let converted = try ProgramRunner.run("coreml-convert", ["onnx", model.path, "--convert-to", "mlprogram", "--compute-precision", "float32",
                                                                     "-q", "-o", package])
            XCTAssertEqual(converted.status, 0, "\(test.model): \(converted.standardError)")
            let out = folder.appendingPathComponent("out\(index)")
            let predicted = try ProgramRunner.run("coreml-predict", [package, "--input", "\(test.input)=\(input.path)", "--output-npy", out.path])
            XCTAssertEqual(predicted.status, 0, "\(test.model): \(predicted.standardError)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), test.outputs.map(\.file).sorted(), test.model)
            for output in test.outputs {
                let reference = try readFloat32Npy(onnx.appendingPathComponent(output.reference))
                let ours = try readFloat32Npy(out.appendingPathComponent(output.file))
                XCTAssertEqual(ours.count, reference.count, "\(test.model) \(output.file)")
                let worst = zip(ours, reference).map { abs($0 - $1) / max(1, abs($1)) }.max() ?? .nan
                XCTAssertLessThanOrEqual(worst, 1e-4, "\(test.model) \(output.file)")
            }
        }
    }

    /// The package's interface is the tensor model's: the input and output
    /// with their exact shapes, as the NeuralNetwork file gives them.
    func testTheInterfaceKeepsTheTensorShapes() throws {
        let model = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx/shuffle_opset13/model.onnx").path
        let folder = try temporaryFolder()
        let package = folder.appendingPathComponent("Shuffle.mlpackage").path
        let converted = try ProgramRunner.run("coreml-convert", ["onnx", model, "--convert-to", "mlprogram", "--compute-precision", "float32", "-q", "-o", package])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let file = folder.appendingPathComponent("Shuffle.mlmodel").path
        XCTAssertEqual(try ProgramRunner.run("coreml-convert", ["onnx", model, "-q", "-o", file]).status, 0)
        func interface(_ path: String) throws -> [String] {
            try ProgramRunner.run("coreml-inspect", [path]).standardOutput.split(separator: "\n")
                .filter { $0.contains("multiarray<") }.map { $0.replacingOccurrences(of: "double", with: "float32") }
        }
        let shapes = try interface(package)
        XCTAssertEqual(shapes.count, 2, "\(shapes)")
        XCTAssertEqual(shapes, try interface(file))
    }
}
