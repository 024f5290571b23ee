import CaffeFrontend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// In-place layers (bottom = top) become fresh tensors, and the network's
/// outputs keep their Caffe top names, also when the in-place layer is the
/// last one: its top's name then belongs to its result, and the value the
/// name held before moves aside (`conv1__conv1`).
final class InPlaceLayerTests: XCTestCase {
    func structure(_ layers: String, legacy: Bool = false) throws -> Model {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("deploy.prototxt").path
        let header = "name: \"inplace\"\ninput: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
        try (header + layers).write(toFile: path, atomically: true, encoding: .utf8)
        let model = try CaffeConverter.convert(deploy: path, weights: nil)
        XCTAssertNoThrow(try model.validate())
        return model
    }

    func testAnInPlaceLastLayerGivesTheOutputItsTopsName() throws {
        let model = try structure("""
            layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 4 kernel_size: 3 } }
            layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
            """)
        XCTAssertEqual(model.outputs.map(\.name), ["conv1"])
        XCTAssertEqual(model.nodes.map(\.outputs), [["conv1__conv1"], ["conv1"]])
        XCTAssertEqual(model.nodes[1].inputs, ["conv1__conv1"])
    }

    func testTwoInPlaceLayersInARowAndTheLegacyFormat() throws {
        let model = try structure("""
            layers { name: "conv1" type: CONVOLUTION bottom: "data" top: "conv1" convolution_param { num_output: 4 kernel_size: 3 } }
            layers { name: "relu1" type: RELU bottom: "conv1" top: "conv1" }
            layers { name: "drop1" type: DROPOUT bottom: "conv1" top: "conv1" }
            layers { name: "power1" type: POWER bottom: "conv1" top: "conv1" power_param { scale: 2 } }
            """)
        XCTAssertEqual(model.outputs.map(\.name), ["conv1"])
        XCTAssertEqual(model.nodes.last?.outputs, ["conv1"])
        XCTAssertEqual(Set(model.nodes.flatMap(\.outputs)).count, model.nodes.count, "every tensor produced once")
    }

    /// The input holds the top's name: the layer's result keeps its own.
    func testAnInPlaceLayerOnTheInputKeepsItsOwnName() throws {
        let model = try structure("""
            layer { name: "scale" type: "Power" bottom: "data" top: "data" power_param { scale: 2 } }
            """)
        XCTAssertEqual(model.inputs.map(\.name), ["data"])
        XCTAssertEqual(model.outputs.map(\.name), ["scale"])
    }
}
