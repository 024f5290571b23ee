import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

/// One Keras model through TFLiteConverter four ways
/// (make_tflite_fixtures.py, write_quantized), each converted, written,
/// read back and run on the inputs LiteRT ran.
final class TFLiteQuantizedTests: XCTestCase {
    let folder = tfliteFixtures.appendingPathComponent("quantized")

    /// float16 weights behind twelve DEQUANTIZE operators: folded, the
    /// weights widened to float32 (exactly), the same layers as the float
    /// model's, LiteRT's outputs within 1e-4 * max(1, |ref|).
    func testFloat16WeightsAreFoldedAndWidened() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("float16.tflite").path)
        let float = try TFLiteConverter.convert(model: folder.appendingPathComponent("float.tflite").path)
        XCTAssertEqual(model.nodes.map(\.operation.kindName), float.nodes.map(\.operation.kindName))
        XCTAssertEqual(model.metadata.userDefined.first { $0.key == "tflite.weights" }?.value, "12 float16 tensors widened to float32")
        let worst = try run(model, "float16")
        XCTAssertLessThanOrEqual(worst.excess, 0, "the largest difference from LiteRT is \(worst.difference)")
    }

    /// int8 kernels with one scale per output channel (CONV_2D, and
    /// FULLY_CONNECTED per row) and float activations: the kernels stay
    /// 8-bit in the file (linear-symmetric, the same levels and scales);
    /// the outputs match the float model with numpy's dequantized kernels
    /// within 1e-4 * max(1, |ref|); LiteRT's hybrid kernels also quantize
    /// their inputs on the fly and this model does not, so the outputs
    /// (softmax probabilities) differ from the file's own by up to 5e-3
    /// (4.6e-3 here), and the top-1 class is the same on all nine inputs.
    func testDynamicRangeKernelsStayEightBit() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("dynamic_range.tflite").path)
        let kept = model.nodes.filter { node in
            switch node.operation {
            case .convolution(let c): c.weights.storedPrecision == .quantized(bits: 8, .linearSymmetric)
            case .innerProduct(let p): p.weights.storedPrecision == .quantized(bits: 8, .linearSymmetric)
            default: false
            }
        }
        XCTAssertEqual(kept.count, 3, "\(model.nodes.map(\.name))")
        XCTAssertEqual(model.metadata.userDefined.first { $0.key == "tflite.weights" }?.value,
                       "3 int8 kernels kept 8-bit (Core ML's linear-symmetric weights, the same levels and scales)")
        // What the file computes with exact float activations: numpy's dequantized kernels in the float model, run by LiteRT.
        let exact = try run(model, "dynamic_range", reference: "dequantized")
        XCTAssertLessThanOrEqual(exact.excess, 0, "the largest difference from the dequantized float model is \(exact.difference)")
        let hybrid = try run(model, "dynamic_range", tolerance: 5e-3)
        XCTAssertLessThanOrEqual(hybrid.excess, 0, "the largest difference from LiteRT is \(hybrid.difference)")
    }

    /// int8 activations between a QUANTIZE of the float input and a
    /// DEQUANTIZE of the output: computed in float (the two dropped), the
    /// six kernels kept 8-bit, the int32 biases widened. LiteRT rounds
    /// every activation to its int8 levels and this model does not: the
    /// probabilities differ by up to 1e-2 (6.3e-3 here; LiteRT's own int8
    /// and float files differ by 1.3e-2), the top-1 class is the same on
    /// all nine inputs.
    func testFullIntegerActivationsAreComputedInFloat() throws {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("full_integer.tflite").path)
        XCTAssertEqual(model.metadata.userDefined.first { $0.key == "tflite.weights" }?.value,
                       "6 int32 quantized tensors widened to float32; 6 int8 kernels kept 8-bit (Core ML's linear-symmetric weights, the same "
                       + "levels and scales); 9 int8 activations computed in float (2 QUANTIZE/DEQUANTIZE dropped)")
        let worst = try run(model, "full_integer", tolerance: 1e-2)
        XCTAssertLessThanOrEqual(worst.excess, 0, "the largest difference from LiteRT is \(worst.difference)")
    }

    /// Runs `model` written to a file on input.npy and inputs.npy: the
    /// largest difference from LiteRT's outputs and its excess over
    /// `tolerance * max(1, |ref|)`; the top-1 class must be LiteRT's on each.
    func run(_ model: Model, _ kind: String, reference: String? = nil, tolerance: Float = 1e-4, line: UInt = #line) throws -> (difference: Float, excess: Float) {
        let reference = reference ?? kind
        let path = checkDirectory.appendingPathComponent("tflite_quantized_\(kind).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first?.name), output = try XCTUnwrap(network.model.outputs.first?.name)
        let first = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path).values
        let more = try NumpyFile.read(path: folder.appendingPathComponent("inputs.npy").path).values
        let references = try NumpyFile.read(path: folder.appendingPathComponent("\(reference)_output.npy").path).values
            + NumpyFile.read(path: folder.appendingPathComponent("\(reference)_outputs.npy").path).values
        let inputs = [first] + stride(from: 0, to: more.count, by: first.count).map { Array(more[$0..<$0 + first.count]) }
        XCTAssertEqual(inputs.count * 10, references.count, line: line)
        var difference: Float = 0, excess = -Float.infinity
        for (index, nhwc) in inputs.enumerated() {
            let x = Tensor(shape: TensorShape([3, 16, 16]), values: chw(nhwc, 16, 16, 3))
            let ours = try XCTUnwrap(try network.predict([input: .array(x)]).outputs[output]?.values, line: line)
            let expected = Array(references[10 * index..<10 * index + 10])
            for (a, b) in zip(ours, expected) {
                difference = max(difference, abs(a - b))
                excess = max(excess, abs(a - b) - tolerance * max(1, abs(b)))
            }
            XCTAssertEqual(ours.indices.max { ours[$0] < ours[$1] }, expected.indices.max { expected[$0] < expected[$1] },
                           "\(kind): input \(index): the top-1 class differs", line: line)
        }
        return (difference, excess)
    }
}
