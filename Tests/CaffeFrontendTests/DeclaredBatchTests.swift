import CaffeFrontend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Caffe's three ways of declaring an input, each with batch 10 as BVLC's
/// deploy files have it: the model takes one image, and the converter
/// reports the declared batch. A batch of 0 or a negative one is refused.
final class DeclaredBatchTests: XCTestCase {
    let layers = "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\" convolution_param { num_output: 4 kernel_size: 3 } }\n"

    func deploy(_ declaration: String) throws -> String {
        let path = try temporaryFolder().appendingPathComponent("deploy.prototxt").path
        try ("name: \"batched\"\n" + declaration + layers).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testEveryWayOfDeclaringABatchTakesOneImage() throws {
        let declarations = [
            "input: \"data\"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 8\ninput_dim: 8\n",
            "input: \"data\"\ninput_shape { dim: 10 dim: 3 dim: 8 dim: 8 }\n",
            "layer { name: \"data\" type: \"Input\" top: \"data\" input_param { shape { dim: 10 dim: 3 dim: 8 dim: 8 } } }\n",
        ]
        for declaration in declarations {
            let path = try deploy(declaration)
            let model = try CaffeConverter.convert(deploy: path, weights: nil)
            XCTAssertEqual(model.inputs.first?.kind, .array(shape: [3, 8, 8]), declaration)
            let batches = try CaffeConverter.conversion(deploy: path, weights: nil).declaredBatches
            XCTAssertEqual(batches.map(\.input), ["data"], declaration)
            XCTAssertEqual(batches.map(\.batch), [10], declaration)
        }
        let single = try deploy("input: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n")
        XCTAssertTrue(try CaffeConverter.conversion(deploy: single, weights: nil).declaredBatches.isEmpty)
        XCTAssertNil(CaffeConverter.batchNote([]))
    }

    func testABatchOfNoImagesIsRefused() throws {
        for batch in ["0", "-1"] {
            let path = try deploy("input: \"data\"\ninput_shape { dim: \(batch) dim: 3 dim: 8 dim: 8 }\n")
            XCTAssertThrowsError(try CaffeConverter.convert(deploy: path, weights: nil)) { error in
                XCTAssertTrue("\(error)".contains("input 'data' has the shape [\(batch), 3, 8, 8]; expected [N, C, H, W] or [N, C]"), "\(error)")
            }
        }
    }
}
