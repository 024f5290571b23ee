import CoreMLBackend
import Foundation
import ModelFiles
import ModelFormat
import ONNXFrontend
import Runtime
import TestSupport
import XCTest

let onnxFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/onnx")

/// Models PyTorch exported (torch.onnx.export, the TorchScript exporter)
/// at opsets 13 and 17, with onnxruntime's outputs on the same files
/// (scripts/fixtures/make_onnx_fixtures.py): each converted, written (and
/// left for check_mlmodels), read back by the runtime and run:
/// |ours - onnxruntime| <= 1e-4 * max(1, |ref|).
final class ONNXParityTests: XCTestCase {
    static let models = ["resnet", "mobilenet_v3", "efficientnet", "squeezenet", "densenet"]

    func testResNetBlocks() throws { try checkParity("resnet") }
    /// HardSwish as its own op at opset 17, as HardSigmoid and Mul at 13.
    func testMobileNetV3Blocks() throws { try checkParity("mobilenet_v3") }
    /// SiLU as Sigmoid and Mul; squeeze-and-excitation gates broadcast over H and W.
    func testEfficientNetBlocks() throws { try checkParity("efficientnet") }
    /// Fire modules' Concat, max pooling with ceil_mode.
    func testSqueezeNetBlocks() throws { try checkParity("squeezenet") }
    /// Dense blocks' Concat, BatchNormalization kept (pre-activation), average pooling.
    func testDenseNetBlocks() throws { try checkParity("densenet") }

    /// A transformer encoder on a [1, 12, 32] sequence (a tensor input):
    /// attention (Transpose, MatMul of tensors, Softmax along the last axis),
    /// layer norms (spelled out at 14, LayerNormalization at 17), GELU
    /// spelled out with Erf and fused, the first token gathered, a linear head.
    func testTransformerEncoder() throws {
        try checkParity("encoder", opsets: [14, 17], input: [1, 12, 32])
        let model = try ONNXConverter.convert(model: onnxFixtures.appendingPathComponent("encoder_opset17/model.onnx").path)
        XCTAssertEqual(model.nodes.filter { $0.operation.kindName == "gelu" }.count, 2, "each layer's Erf GELU fused into one node")
    }

    /// A vision transformer: its image a [1, 3, 32, 32] tensor, the patch
    /// convolution written on it (Core ML's [batch, C, H, W]), the patches
    /// reshaped into a sequence, then the encoder as above.
    func testVisionTransformer() throws {
        try checkParity("vit", opsets: [14, 17], input: [1, 3, 32, 32])
        let model = try ONNXConverter.convert(model: onnxFixtures.appendingPathComponent("vit_opset17/model.onnx").path)
        XCTAssertEqual(model.inputs.map(\.kind), [.tensor(shape: [1, 3, 32, 32])])
    }

    /// Convolutions mixed with tensor operations on a [1, 3, 20, 16] image:
    /// a channel shuffle through rank 5 (Reshape, Transpose, Reshape), a
    /// layer norm of channels-last values between convolutions, max pooling
    /// and batch norm after a Transpose swapping H and W. Every value is a
    /// [1, C, H, W] tensor; the convolutions, pooling and batch norm take it
    /// as their map with a batch axis (`OpDefinition.takesBatchedMaps`).
    func testConvolutionsMixedWithTensorOperations() throws {
        try checkParity("mixed", input: [1, 3, 20, 16])
        for opset in [13, 17] {
            let model = try ONNXConverter.convert(model: onnxFixtures.appendingPathComponent("mixed_opset\(opset)/model.onnx").path)
            let kinds = Set(model.nodes.map(\.operation.kindName))
            XCTAssertTrue(kinds.isSuperset(of: ["convolution", "pooling", "transpose"]), "opset \(opset): \(kinds.sorted())")
            let shapes = try ShapeInference.shapes(of: model)
            for node in model.nodes where node.operation.kindName == "pooling" {
                XCTAssertEqual(shapes[node.outputs[0]]?.rank, 4, "opset \(opset): \(node.name) keeps the batch axis")
            }
        }
    }

    /// ShuffleNetV2's unit: torch's chunk as two Slices of a tensor, a
    /// depthwise branch on one half, Concat, the rank-5 shuffle, and a
    /// Slice with steps (every other row, from column 1).
    func testChannelSplitBySlicesOfATensor() throws {
        try checkParity("shuffle", input: [1, 3, 16, 16])
        let model = try ONNXConverter.convert(model: onnxFixtures.appendingPathComponent("shuffle_opset17/model.onnx").path)
        let slices = model.nodes.compactMap { node in (node.operation.definition as? Slice) }
        XCTAssertEqual(slices.count, 4, "the two halves; then rows in steps of 2 and columns from 1, torch exports one Slice each")
        XCTAssertTrue(slices.contains { $0.strides == [1, 1, 2, 1] }, "\(slices)")
    }

    /// A segmentation network's per-pixel scores (bilinear resize, transposed convolution).
    func testSegmentationScores() throws { try checkParity("segmenter", input: [1, 3, 24, 32]) }

    /// Swin's cyclic shift: torch.roll of a [1, H, W, C] tensor along H and
    /// W, exported as two Slices and a Concat per axis (sliceStatic, concatND).
    func testRollAsSlicesAndConcat() throws {
        try checkParity("roll", input: [1, 6, 5, 4])
        let model = try ONNXConverter.convert(model: onnxFixtures.appendingPathComponent("roll_opset17/model.onnx").path)
        XCTAssertEqual(model.nodes.filter { ($0.operation.definition as? Concat).map { $0.axis != Concat.channelAxis } ?? false }.count, 4)
    }

    func testEveryFixtureIsTested() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: onnxFixtures.path).filter { $0.contains("_opset") }.sorted()
        XCTAssertEqual(folders, (Self.models.flatMap { name in [13, 17].map { "\(name)_opset\($0)" } } + ["encoder_opset14", "encoder_opset17", "vit_opset14", "vit_opset17", "mixed_opset13", "mixed_opset17", "shuffle_opset13", "shuffle_opset17", "segmenter_opset13", "segmenter_opset17", "roll_opset13", "roll_opset17"]).sorted())
    }

    func checkParity(_ name: String, opsets: [Int] = [13, 17], input shape: [Int] = [3, 32, 32], file: StaticString = #filePath, line: UInt = #line) throws {
        for opset in opsets {
            let folder = onnxFixtures.appendingPathComponent("\(name)_opset\(opset)")
            let model = try ONNXConverter.convert(model: folder.appendingPathComponent("model.onnx").path)
            let path = checkDirectory.appendingPathComponent("onnx_\(name)_opset\(opset).mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let network = try Network(contentsOf: path)
            let input = try XCTUnwrap(network.model.inputs.first)
            let expected = shape.count >= 3 && shape[0] == 1 ? TensorShape(shape) : try XCTUnwrap(TensorShape(featureShape: shape))
            let value = try NumpyFile.tensor(path: folder.appendingPathComponent("input.npy").path, fitting: expected, input: input.name)
            let prediction = try network.predict([input.name: .array(value)])
            let reference = try NumpyFile.read(path: folder.appendingPathComponent("output.npy").path).values
            let ours = try XCTUnwrap(prediction.outputs["output"]?.values, "\(name) opset \(opset): no output", file: file, line: line)
            XCTAssertEqual(ours.count, reference.count, "\(name) opset \(opset)", file: file, line: line)
            if let worst = worstMismatch(ours, reference) {
                XCTFail("\(name) opset \(opset): value \(worst.index) is \(worst.ours), onnxruntime gives \(worst.reference)", file: file, line: line)
            }
        }
    }
}
