import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// What the NeuralNetwork backend refuses of rank-N models, before any
/// byte is written, and how it writes a shape-keeping rank-N layer in a
/// model of [C, H, W] arrays.
final class RankNWriterTests: XCTestCase {
    /// An operation that no backend or runtime knows.
    struct Unknown: OpDefinition, Equatable {
        var kindName: String { "unknown" }
        func outputShapes(_ inputs: [TensorShape], outputCount: Int) throws(ModelError) -> [TensorShape] { [inputs[0]] }
    }

    func assertRefused(_ model: Model, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let path = try temporaryFolder().appendingPathComponent("refused.mlmodel").path
        XCTAssertThrowsError(try CoreMLWriter.write(model, to: path), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(fragment), "\(error)", file: file, line: line)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), file: file, line: line)
    }

    func testWhatCoreMLCannotHoldIsRefused() throws {
        let array = Input(name: "x", kind: .array(shape: [3, 4, 5]))
        let tensor = Input(name: "t", kind: .tensor(shape: [2, 3]))
        try assertRefused(Model(inputs: [array], outputs: [Output(name: "y")], nodes: [Node("y", .reshape(targetShape: [60]), input: "x")]),
                          "layer 'y': reshapeStatic needs a model with tensor (rank-N) inputs")
        // Core ML's validator: "Load constant layer 'k' must be a 3D constant"; in a model of maps only [C, H, W] ones are written.
        try assertRefused(Model(inputs: [array], outputs: [Output(name: "y")],
                                nodes: [Node(name: "k", operation: .constant(shape: [5], data: Weights([1, 2, 3, 4, 5])), inputs: [], outputs: ["k"]),
                                        Node(name: "y", operation: .add(constant: 0), inputs: ["x", "k"], outputs: ["y"])]),
                          "layer 'k': loadConstantND needs a model with tensor (rank-N) inputs")
        try assertRefused(Model(inputs: [array], outputs: [Output(name: "y")], nodes: [Node("y", .defined(Softmax(axis: -1)), input: "x")]),
                          "softmaxND needs a model with tensor (rank-N) inputs")
        try assertRefused(Model(inputs: [tensor, Input(name: "i", kind: .image(ImageInput(width: 4, height: 4)))], outputs: [Output(name: "y")],
                                nodes: [Node("y", .defined(GELU()), input: "t")]),
                          "input 'i': a model with tensor inputs takes only tensor inputs")
        try assertRefused(Model(inputs: [tensor, Input(name: "u", kind: .tensor(shape: [3]))], outputs: [Output(name: "y")],
                                nodes: [Node(name: "y", operation: .maximum, inputs: ["t", "u"], outputs: ["y"])]),
                          "layer 'y': Core ML cannot broadcast a maximum of tensors")
        try assertRefused(Model(inputs: [tensor], outputs: [Output(name: "y")], nodes: [Node("y", .defined(Unknown()), input: "t")]),
                          "layer 'y': Core ML has no layer for the operation 'unknown'")
        // Core ML's validator takes a convolution on tensors only at rank 4 and more.
        let conv = Op.convolution(Convolution(outputChannels: 1, kernelChannels: 2, kernel: Size2(square: 1), weights: Weights([1, 1])))
        try assertRefused(Model(inputs: [Input(name: "t", kind: .tensor(shape: [2, 3, 3]))], outputs: [Output(name: "y")],
                                nodes: [Node("y", conv, input: "t")]),
                          "layer 'y': a convolution on tensor inputs is not written yet")
        // Channel-last order is the classic reshape layer's (reshapeStatic has none), which only a model of maps gets.
        try assertRefused(Model(inputs: [Input(name: "t", kind: .tensor(shape: [2, 3, 4]))], outputs: [Output(name: "y")],
                                nodes: [Node("y", .reshape(targetShape: [4, 3, 2], order: .channelLast), input: "t")]),
                          "layer 'y': a reshape on tensor inputs is not written yet")
    }

    /// GELU only maps values, so a model of [C, H, W] arrays can hold it:
    /// written at version 4 with the batch axis, read back the same.
    func testAShapeKeepingLayerJoinsAnArrayModel() throws {
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [3, 4, 5]))], outputs: [Output(name: "y", shape: [3, 4, 5])],
                          nodes: [Node("y", .defined(GELU(mode: .tanhApproximation)), input: "x")])
        let path = checkDirectory.appendingPathComponent("gelu_array_model.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING",
            "inputs": [["name": "x", "type": "multiArray", "shape": [1, 3, 4, 5]]],
            "outputs": [["name": "y", "type": "multiArray", "shape": [1, 3, 4, 5]]],
            "layers": [["name": "y", "type": "gelu", "params": ["mode": "TANH_APPROXIMATION"]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("gelu_array_model.expect.json"))
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 4)
        XCTAssertEqual(file.model, model)
    }

    /// An image the network takes as a [1, C, H, W] tensor (a ViT's
    /// pixels, `ImageInput.asTensor`): written as coremltools writes an
    /// ImageType of a rank-4 input (exact arrays, RANK4_IMAGE_MAPPING, no
    /// layer between the image and its readers), read back the same; next
    /// to an image of a [C, H, W] model it is refused.
    func testAnImageTakenAsATensorRoundTrips() throws {
        let image = ImageInput(width: 5, height: 4, colorSpace: .bgr, scale: 0.5, redBias: 1, greenBias: 2, blueBias: 3, asTensor: true)
        let model = Model(inputs: [Input(name: "x", kind: .image(image))], outputs: [Output(name: "y", shape: [1, 3, 5, 4])],
                          nodes: [Node("y", .defined(Transpose(axes: [0, 1, 3, 2])), input: "x")])
        let path = checkDirectory.appendingPathComponent("image_as_tensor.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING", "imageInputShapeMapping": "RANK4_IMAGE_MAPPING",
            "inputs": [["name": "x", "type": "image", "width": 5, "height": 4, "colorSpace": "BGR"]],
            "outputs": [["name": "y", "type": "multiArray", "shape": [1, 3, 5, 4]]],
            "layers": [["name": "y", "type": "transpose", "inputs": ["x"]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("image_as_tensor.expect.json"))
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 4)
        XCTAssertEqual(file.model, model)
        let mixed = Model(inputs: model.inputs + [Input(name: "i", kind: .image(ImageInput(width: 4, height: 4)))], outputs: model.outputs, nodes: model.nodes)
        try assertRefused(mixed, "input 'i': a model with tensor inputs takes only tensor inputs")
    }
}
