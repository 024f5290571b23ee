import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// Forms the program writer came to write after the suite's models showed
/// them refused (scripts/verify/mlprogram_suite_models.py): each read back
/// as the nodes it was written from, or as nodes computing the same values
/// as the model's own run. (What they compute against a framework: the
/// Caffe and ONNX tests of the layers, as NeuralNetwork files and programs.)
final class ProgramFormsTests: XCTestCase {
    /// A channel split (one `split` with an output each), L2 pooling
    /// (`l2_pool`; a global one the L2 norm over H and W) and a mean image
    /// (an `add` of its negation after the image's scale and biases, read
    /// back into the input).
    func testSplitL2PoolingAndAMeanImageReadBack() throws {
        var model = SampleModel.classifier()
        guard case .image(var image) = model.inputs[0].kind else { return XCTFail("the sample's input moved") }
        image.meanImage = Weights((0..<(3 * 227 * 227)).map { Float($0 % 251) / 251 })
        model.inputs[0].kind = .image(image)
        let l2 = Pooling(kind: .l2, kernel: Size2(square: 3), stride: Size2(square: 2), padding: .explicit(Edges(top: 1, bottom: 1, left: 1, right: 1)))
        model.nodes += [
            Node(name: "halves", operation: .split, inputs: ["relu1"], outputs: ["low", "high"]),
            Node("l2", .pooling(l2), input: "high"),
            Node("l2_global", .pooling(Pooling(kind: .l2, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)), input: "low"),
        ]
        model.outputs = [Output(name: "l2"), Output(name: "l2_global")]
        let path = try temporaryFolder().appendingPathComponent("Forms.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let file = try MLProgramReader.read(from: path)
        guard case .image(let read) = file.model.inputs[0].kind else { return XCTFail("the image input was not read back") }
        XCTAssertEqual(read, image)
        let split = try XCTUnwrap(file.model.nodes.first { $0.operation == .split })
        XCTAssertEqual(split.outputs.count, 2)
        XCTAssertEqual(file.model.nodes.first { $0.outputs == ["l2"] }?.operation, .pooling(l2))

        // Both run as the model itself does on the same values.
        let pixels = (0..<(3 * 227 * 227)).map { Float(($0 * 7) % 256) }
        let feed: [String: InputValue] = ["data": .array(Tensor(shape: TensorShape([3, 227, 227]), values: pixels))]
        let ours = try Network(file.model).predict(feed).outputs, theirs = try Network(model).predict(feed).outputs
        for name in ["l2", "l2_global"] {
            let (a, b) = (try XCTUnwrap(ours[name]?.values), try XCTUnwrap(theirs[name]?.values))
            XCTAssertEqual(a.count, b.count)
            XCTAssertNil(worstMismatch(a, b), name)
        }
    }

    /// NeuralNetwork's LOGSUM (a sum of logarithms of x + epsilon): MIL's
    /// `log` then `reduce_sum`, not its `reduce_log_sum` (the logarithm of a
    /// sum).
    func testALogSumReductionIsASumOfLogarithms() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 2, 3]))], outputs: [Output(name: "y")], nodes: [
            Node(name: "y", operation: .reduce(Reduce(mode: .logSum, axes: [-1], epsilon: 0.5)), inputs: ["x"], outputs: ["y"]),
        ])
        let path = try temporaryFolder().appendingPathComponent("LogSum.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let values: [Float] = [1, 2, 3, 0.5, 4, 8]
        let feed: [String: InputValue] = ["x": .array(Tensor(shape: TensorShape([1, 2, 3]), values: values))]
        let y = try XCTUnwrap(try Network(try MLProgramReader.read(from: path).model).predict(feed).outputs["y"]?.values)
        let expected = [0, 3].map { start in (start..<start + 3).map { log(values[$0] + 0.5) }.reduce(0, +) }
        XCTAssertNil(worstMismatch(y, expected), "\(y) vs \(expected)")
    }

    /// A clip whose bounds meet or cross (a Keras ReLU(max_value=0)): iOS 17's clip requires alpha < beta (coremltools'
    /// loader refused the sweep's relu_max_0 packages at specification 8), so it is written as maximum then minimum,
    /// min(max(x, alpha), beta) as Core ML's clip and this runtime compute it; a clip with a range stays one operation.
    func testAClipWithoutARangeIsMaximumThenMinimum() throws {
        let values: [Float] = [-2, -0.5, 0, 0.5, 2, 7]
        for (low, high) in [(Float(0), Float(0)), (0.5, 0.5), (-1, 1)] {
            let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [1, 6]))], outputs: [Output(name: "y")], nodes: [
                Node(name: "y", operation: .activation(.clip(min: low, max: high)), inputs: ["x"], outputs: ["y"]),
            ])
            let path = try temporaryFolder().appendingPathComponent("Clip.mlpackage").path
            try MLProgramWriter.write(model, to: path, minimumSpecificationVersion: 8)
            let file = try MLProgramReader.read(from: path)
            let types = file.program?.operationCounts.map(\.type) ?? []
            XCTAssertEqual(types.contains("clip"), low < high, "\(low), \(high): \(types)")
            let feed: [String: InputValue] = ["x": .array(Tensor(shape: TensorShape([1, 6]), values: values))]
            let y = try XCTUnwrap(try Network(file.model).predict(feed).outputs["y"]?.values)
            XCTAssertEqual(y, values.map { min(max($0, low), high) }, "\(low), \(high)")
        }
    }

    /// An l2_norm's epsilon the file sets to NaN or -1 (its float bytes swapped in the program) is refused on reading,
    /// by name, as batch norm's is.
    func testAHostileL2NormEpsilonIsRefused() throws {
        var model = SampleModel.classifier()
        model.nodes.append(Node("norm", .l2Normalize(epsilon: 0.125), input: "relu1"))
        model.outputs = [Output(name: "norm")]
        let path = try temporaryFolder().appendingPathComponent("Norm.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let program = path + "/Data/com.apple.CoreML/model.mlmodel"
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: program)))
        let written: [UInt8] = [0x00, 0x00, 0x00, 0x3E]  // 0.125, little-endian
        let at = try XCTUnwrap((0...(original.count - 4)).first { Array(original[$0..<$0 + 4]) == written })
        for hostile: [UInt8] in [[0x00, 0x00, 0xC0, 0x7F], [0x00, 0x00, 0x80, 0xBF]] {  // NaN, -1
            var bytes = original
            bytes.replaceSubrange(at..<at + 4, with: hostile)
            try Data(bytes).write(to: URL(fileURLWithPath: program))
            XCTAssertThrowsError(try CoreMLReader.read(from: path).model.validate()) { error in
                XCTAssertTrue("\(error)".contains("epsilon"), "\(error)")
            }
        }
    }
}
