import CaffeFrontend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Layers along an axis other than channels: what converts (the values are
/// checked against OpenCV in CaffeParityTests.testModernBlocks) and what is
/// refused, each with the file, line and layer.
final class AxisLayerTests: XCTestCase {
    func convert(_ layers: String, input: String = "dim: 1 dim: 6 dim: 4 dim: 5") throws -> Model {
        let folder = try temporaryFolder()
        let path = folder.appendingPathComponent("deploy.prototxt").path
        try ("name: \"axes\"\ninput: \"data\"\ninput_shape { \(input) }\n" + layers).write(toFile: path, atomically: true, encoding: .utf8)
        let model = try CaffeConverter.convert(deploy: path, weights: nil)
        XCTAssertNoThrow(try model.validate())
        return model
    }

    func refusal(_ layers: String, input: String = "dim: 1 dim: 6 dim: 4 dim: 5") -> String {
        do {
            _ = try convert(layers, input: input)
            return "converted"
        } catch {
            return "\(error)"
        }
    }

    func testNegativeAxesCountFromTheBlobsOwnRank() throws {
        // After Flatten the blob is [N, 120]: axis -1 is its axis 1, channels.
        let model = try convert("""
            layer { name: "flat" type: "Flatten" bottom: "data" top: "flat" }
            layer { name: "prob" type: "Softmax" bottom: "flat" top: "prob" softmax_param { axis: -1 } }
            """)
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["flatten", "softmax"])
        // On [N, C, H, W], -1 is W: C and W swap around the softmax.
        let spatial = try convert("""
            layer { name: "prob" type: "Softmax" bottom: "data" top: "prob" softmax_param { axis: -1 } }
            """)
        XCTAssertEqual(spatial.nodes.map(\.operation), [.permute(axes: [0, 3, 2, 1]), .softmax, .permute(axes: [0, 3, 2, 1])])
    }

    func testConcatAlongHeightChecksTheOtherAxes() throws {
        let model = try convert("""
            layer { name: "cat" type: "Concat" bottom: "data" bottom: "data" top: "cat" concat_param { axis: 2 } }
            """)
        XCTAssertEqual(try model.validate()["cat"], TensorShape(channels: 6, height: 8, width: 5))
        let message = refusal("""
            layer { name: "pool" type: "Pooling" bottom: "data" top: "pool" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
            layer { name: "cat" type: "Concat" bottom: "data" bottom: "pool" top: "cat" concat_param { axis: 2 } }
            """)
        XCTAssertTrue(message.contains("deploy.prototxt:5") && message.contains("cat"), message)
    }

    func testRefusals() {
        let cases: [(String, String)] = [
            ("layer { name: \"s\" type: \"Softmax\" bottom: \"data\" top: \"s\" softmax_param { axis: 0 } }", "batch axis"),
            ("layer { name: \"s\" type: \"Softmax\" bottom: \"data\" top: \"s\" softmax_param { axis: 4 } }", "axis 4 is out of range"),
            ("layer { name: \"a\" type: \"ArgMax\" bottom: \"data\" top: \"a\" argmax_param { top_k: 3 axis: 1 } }", "top_k 3"),
            ("layer { name: \"a\" type: \"ArgMax\" bottom: \"data\" top: \"a\" argmax_param { out_max_val: true axis: 1 } }", "out_max_val"),
            ("layer { name: \"a\" type: \"ArgMax\" bottom: \"data\" top: \"a\" }", "give argmax_param's axis"),
            ("layer { name: \"c\" type: \"Concat\" bottom: \"data\" bottom: \"data\" top: \"c\" concat_param { axis: 0 } }", "batch axis"),
            ("layer { name: \"f\" type: \"InnerProduct\" bottom: \"data\" top: \"f\" inner_product_param { num_output: 2 axis: 0 } }", "batch axis"),
        ]
        for (layer, expected) in cases {
            let message = refusal(layer)
            XCTAssertTrue(message.contains("deploy.prototxt:4") && message.contains(expected), "\(layer): \(message)")
        }
    }

    func testScaleByABottomBroadcastsAsCoreMLCan() throws {
        // [N, C] over axis 0 (SE blocks): the factor is [C, 1, 1].
        let model = try convert("""
            layer { name: "pool" type: "Pooling" bottom: "data" top: "pool" pooling_param { pool: AVE global_pooling: true } }
            layer { name: "flat" type: "Flatten" bottom: "pool" top: "flat" }
            layer { name: "scale" type: "Scale" bottom: "data" bottom: "flat" top: "scale" scale_param { axis: 0 } }
            """)
        XCTAssertEqual(model.nodes.last?.operation, .multiply(constant: 1))
        XCTAssertEqual(try model.validate()["scale"], TensorShape(channels: 6, height: 4, width: 5))
        // [N, C, H] against [N, C, H, W] would need [C, H, 1]: Core ML's multiply cannot.
        let message = refusal("""
            layer { name: "rows" type: "Pooling" bottom: "data" top: "rows" pooling_param { pool: AVE kernel_h: 1 kernel_w: 5 } }
            layer { name: "flat" type: "Reshape" bottom: "rows" top: "flat" reshape_param { shape { dim: 0 dim: 6 dim: 4 } } }
            layer { name: "scale" type: "Scale" bottom: "data" bottom: "flat" top: "scale" scale_param { axis: 0 } }
            """)
        XCTAssertTrue(message.contains("deploy.prototxt:6") && message.contains("[C, 1, 1], [1, H, W]"), message)
        let mismatch = refusal("""
            layer { name: "scale" type: "Scale" bottom: "data" bottom: "data" top: "scale" scale_param { axis: 2 } }
            """)
        XCTAssertTrue(mismatch.contains("deploy.prototxt:4") && mismatch.contains("scale bottom"), mismatch)
    }
}
