import CoreMLBackend
import ModelFormat
import TestSupport
import XCTest

/// A model with tensor inputs as an ML Program: read back as the same
/// rank-N operations (what they compute against onnxruntime:
/// ConvertTensorProgramTests), and what is not written yet refused by name.
final class TensorProgramTests: XCTestCase {
    /// A tensor model whose first node is named as a map model's input
    /// reshape (`<input>_map`) still reads back as a tensor model.
    func testATensorModelReadsBackAsItsRankNOperations() throws {
        let model = Model(inputs: [Input(name: "input", kind: .tensor(shape: [1, 2, 6]))], outputs: [Output(name: "y")], nodes: [
            Node(name: "input_map", operation: .reshape(targetShape: [1, 6, 2]), inputs: ["input"], outputs: ["input_map"]),
            Node(name: "t", operation: .defined(Transpose(axes: [0, 2, 1])), inputs: ["input_map"], outputs: ["t"]),
            Node(name: "s", operation: .defined(Softmax(axis: -1)), inputs: ["t"], outputs: ["s"]),
            Node(name: "r", operation: .reduce(Reduce(mode: .sum, axes: [-1], keepDimensions: false)), inputs: ["s"], outputs: ["r"]),
            Node(name: "y", operation: .defined(GELU(mode: .sigmoidApproximation)), inputs: ["r"], outputs: ["y"]),
        ])
        let path = try temporaryFolder().appendingPathComponent("Tensor.mlpackage").path
        try MLProgramWriter.write(model, to: path)
        let read = try MLProgramReader.read(from: path).model
        XCTAssertEqual(read.inputs.first?.kind, .tensor(shape: [1, 2, 6]))
        XCTAssertEqual(read.outputs.first?.shape, [1, 2])
        XCTAssertEqual(read.nodes.map(\.operation), [
            .reshape(targetShape: [1, 6, 2]), .defined(Transpose(axes: [0, 2, 1])), .defined(Softmax(axis: 2)),
            .reduce(Reduce(mode: .sum, axes: [2], keepDimensions: false)), .defined(GELU(mode: .sigmoidApproximation)),
        ])
        XCTAssertNoThrow(try read.validate())
    }

    func testWhatIsNotWrittenYetIsRefusedByName() throws {
        let path = try temporaryFolder().appendingPathComponent("Refused.mlpackage").path
        func assertRefused(_ model: Model, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try MLProgramWriter.write(model, to: path), line: line) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)", line: line)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), line: line)
        }
        let tensor = Input(name: "x", kind: .tensor(shape: [1, 4, 3, 3]))
        func model(_ op: Op, outputs: [String] = ["y"]) -> Model {
            Model(inputs: [tensor], outputs: outputs.map { Output(name: $0) }, nodes: [Node(name: "n", operation: op, inputs: ["x"], outputs: outputs)])
        }
        assertRefused(model(.reduce(Reduce(mode: .argmax, axes: [2, 3]))), "layer 'n': MLProgramWriter does not yet write an argmax over 2 axes")
    }

    /// An image input of a tensor model (an ONNX export's `images`): its
    /// preprocessing back into the input, the model a tensor model again
    /// (told by the `<input>_tensor` identity), at both precisions.
    func testAnImageInputOfATensorModelReadsBackAsOne() throws {
        let image = ImageInput(width: 3, height: 2, colorSpace: .bgr, scale: 0.5, blueBias: 1, asTensor: true)
        let model = Model(inputs: [Input(name: "x", kind: .image(image))], outputs: [Output(name: "y")], nodes: [
            Node(name: "t", operation: .defined(Transpose(axes: [0, 1, 3, 2])), inputs: ["x"], outputs: ["t"]),
            Node(name: "y", operation: .defined(Softmax(axis: -1)), inputs: ["t"], outputs: ["y"]),
        ])
        for precision in [Precision.float32, .float16] {
            let path = try temporaryFolder().appendingPathComponent("Image.mlpackage").path
            try MLProgramWriter.write(model, to: path, computePrecision: precision)
            let read = try MLProgramReader.read(from: path).model
            XCTAssertEqual(read.inputs.first?.image, image, precision.name)
            XCTAssertTrue(read.hasTensorInputs, precision.name)
            XCTAssertEqual(read.nodes.map(\.operation), [.defined(Transpose(axes: [0, 1, 3, 2])), .defined(Softmax(axis: 3))], precision.name)
            XCTAssertNoThrow(try read.validate())
        }
    }
}
