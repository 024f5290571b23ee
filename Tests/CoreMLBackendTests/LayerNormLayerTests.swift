@testable import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Layer normalization, written as one specification-4
/// layerNormalization layer and read back as the one node it was written
/// for; the fields as coremltools decodes them are checked by
/// scripts/check_mlmodels.py (this test leaves the files and their
/// expectations in the check folder).
final class LayerNormLayerTests: XCTestCase {
    func roundTrip(_ model: Model, _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let path = checkDirectory.appendingPathComponent("\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let read = try CoreMLReader.read(from: path)
        XCTAssertEqual(read.specificationVersion, 4, file: file, line: line)
        XCTAssertEqual(read.model, model, file: file, line: line)
    }

    func expect(_ name: String, _ params: [String: Any]) throws {
        let expectation: [String: Any] = ["specificationVersion": 4, "layerCount": 1,
                                          "layers": [["name": "y", "type": "layerNormalization", "inputs": ["x"], "params": params]]]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("\(name).expect.json"))
    }

    /// Over the last two axes of a tensor, with gamma and beta.
    func testOverTheLastAxesWithGammaAndBetaRoundTrips() throws {
        let gamma: [Float] = (0..<12).map { Float($0) / 4 - 1 }, beta: [Float] = (0..<12).map { Float($0) / 8 }
        let norm = LayerNorm(normalizedShape: [3, 4], epsilon: 1e-5, gamma: Weights(gamma), beta: Weights(beta))
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [2, 3, 4]))], outputs: [Output(name: "y", shape: [2, 3, 4])],
                          nodes: [Node("y", .defined(norm), input: "x")])
        try roundTrip(model, "layernorm_gamma_beta")
        try expect("layernorm_gamma_beta", ["normalizedShape": [3, 4], "eps": 1e-5, "gamma.floatValue": gamma, "beta.floatValue": beta])
    }

    /// Core ML requires gamma and beta: absent ones are written as ones
    /// and zeros, in float32 even when the model is written in float16
    /// (the validator counts float values), and read back absent.
    func testAbsentGammaAndBetaAreWrittenAsOnesAndZeros() throws {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [5, 4]))], outputs: [Output(name: "y", shape: [5, 4])],
                          nodes: [Node("y", .defined(LayerNorm(normalizedShape: [4], epsilon: 0.5)), input: "x")])
        try roundTrip(model, "layernorm_plain")
        try expect("layernorm_plain", ["normalizedShape": [4], "eps": 0.5, "gamma.floatValue": [1, 1, 1, 1], "beta.floatValue": [0, 0, 0, 0]])

        let half = Model(inputs: model.inputs, outputs: model.outputs,
                         nodes: [Node("y", .defined(LayerNorm(normalizedShape: [4], epsilon: 0.5, gamma: Weights([2, 3, 4, 5]))), input: "x")])
        let path = checkDirectory.appendingPathComponent("layernorm_float16.mlmodel").path
        try CoreMLWriter.write(half, to: path, precision: .float16)
        XCTAssertEqual(try CoreMLReader.read(from: path).model, half)
        try expect("layernorm_float16", ["gamma.floatValue": [2, 3, 4, 5], "beta.floatValue": [0, 0, 0, 0]])
    }

    /// On a [C, H, W] map, written with a batch axis, the last axes are
    /// the same ones.
    func testOnAMapRoundTrips() throws {
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [3, 4, 5]))], outputs: [Output(name: "y", shape: [3, 4, 5])],
                          nodes: [Node("y", .defined(LayerNorm(normalizedShape: [5], epsilon: 1e-3)), input: "x")])
        try roundTrip(model, "layernorm_map")
    }

    /// Over the channels of a [C, H, W] map: eight specification-1 layers
    /// (the ones Keras models were written with before), read back as the
    /// one node; an epsilon of 0 is written as the least float.
    func testOverTheChannelsOfAMapRoundTripsAsEightLayers() throws {
        let input = Input(name: "x", kind: .array(shape: [3, 2, 2]))
        let norm = LayerNorm.overChannels(3, epsilon: 1e-3, gamma: nil, beta: Weights([0.5, -1, 2]))
        let model = Model(inputs: [input], outputs: [Output(name: "y", shape: [3, 2, 2])], nodes: [Node("y", .defined(norm), input: "x")])
        let path = checkDirectory.appendingPathComponent("layernorm_channels.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let read = try CoreMLReader.read(from: path)
        XCTAssertEqual(read.specificationVersion, 1)
        XCTAssertEqual(read.model, model)
        let layers: [[String: Any]] = [
            ["name": "y__mean", "type": "reduce", "inputs": ["x"]], ["name": "y__negated_mean", "type": "multiply"],
            ["name": "y__centered", "type": "add", "inputs": ["x", "y__negated_mean"]],
            ["name": "y__squared", "type": "multiply", "inputs": ["y__centered", "y__centered"]], ["name": "y__variance", "type": "reduce"],
            ["name": "y__rsqrt", "type": "unary", "params": ["epsilon": 1e-3]],
            ["name": "y__normalized", "type": "multiply", "inputs": ["y__centered", "y__rsqrt"]],
            ["name": "y", "type": "scale", "inputs": ["y__normalized"], "params": ["scale.floatValue": [1, 1, 1], "bias.floatValue": [0.5, -1, 2]]],
        ]
        try JSONSerialization.data(withJSONObject: ["specificationVersion": 1, "layerCount": 8, "layers": layers] as [String: Any],
                                   options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("layernorm_channels.expect.json"))

        let zero = Model(inputs: [input], outputs: model.outputs,
                         nodes: [Node("y", .defined(LayerNorm.overChannels(3, epsilon: 0, gamma: nil, beta: nil)), input: "x")])
        let zeroPath = try temporaryFolder().appendingPathComponent("zero.mlmodel").path
        try CoreMLWriter.write(zero, to: zeroPath)
        XCTAssertEqual(try CoreMLReader.read(from: zeroPath).model.nodes.map(\.operation),
                       [.defined(LayerNorm.overChannels(3, epsilon: .leastNonzeroMagnitude, gamma: nil, beta: nil))])
    }

    /// The same layers wired otherwise (the centered value squared is read
    /// by a later layer) are read back one node each.
    func testLayersWiredOtherwiseAreReadOneByOne() throws {
        let norm = LayerNorm.overChannels(3, epsilon: 1e-3, gamma: nil, beta: nil)
        let names = LayerNorm.channelSuffixes.map { "y__" + $0 }
        var nodes = norm.channelNodes(Node("y", .defined(norm), input: "x"), names)
        nodes.append(Node(name: "z", operation: .add(constant: 0), inputs: ["y", "y__squared"], outputs: ["z"]))
        let model = Model(inputs: [Input(name: "x", kind: .array(shape: [3, 2, 2]))], outputs: [Output(name: "z")], nodes: nodes)
        let path = try temporaryFolder().appendingPathComponent("otherwise.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        XCTAssertEqual(try CoreMLReader.read(from: path).model.nodes, nodes)
    }

    /// A normalized shape that is not the input's last axes, and a gamma
    /// of another size, are refused by validation, naming the layer.
    func testANormalizedShapeNotAtTheEndAndAGammaOfAnotherSizeAreRefused() throws {
        let input = Input(name: "x", kind: .tensor(shape: [2, 3, 4]))
        let cases: [(LayerNorm, String)] = [
            (LayerNorm(normalizedShape: [3], epsilon: 1e-5), "layer 'y': normalized shape [3] is not the last axes of the input"),
            (LayerNorm(normalizedShape: [4], epsilon: 1e-5, gamma: Weights([1, 2])), "gamma has 2 values, expected 4"),
        ]
        for (norm, message) in cases {
            let model = Model(inputs: [input], outputs: [Output(name: "y")], nodes: [Node("y", .defined(norm), input: "x")])
            XCTAssertThrowsError(try model.validate()) { error in
                XCTAssertTrue("\(error)".contains(message), "\(error)")
            }
        }
    }
}
