import Conversion
import CoreMLBackend
import DarknetFrontend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

let darknetFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/darknet")

/// Each case in Tests/Fixtures/darknet (scripts/fixtures/make_darknet_fixtures.py)
/// converted, written as .mlmodel (left for the coremltools check), read
/// back by the runtime, run on the case's input and compared with OpenCV
/// dnn's readNetFromDarknet: |ours - ref| <= 1e-4 * max(1, |ref|).
final class DarknetParityTests: XCTestCase {
    /// yolov2-tiny-voc's structure: batch norm, leaky ReLU, the size-2
    /// stride-1 max pool that pads right and bottom; a 20-byte header.
    func testTinyYOLO() throws { try checkParity("tiny_yolo", layers: ["conv_0", "leaky_0", "pool_1"], output: [125, 16, 16]) }
    /// A route concatenating in its listed order, grouped and strided
    /// convolutions, an odd max pool, ReLU and logistic; a 16-byte header.
    func testRouteAndVersionOneHeader() throws { try checkParity("route_v1", layers: ["route_4", "logistic_5"], output: [6, 12, 10]) }

    /// YOLOv2's passthrough: [reorg] (Darknet's channel order) between two routes.
    func testReorgAsYOLOv2UsesIt() throws { try checkParity("yolov2_reorg", layers: ["reorg_7", "route_8"], output: [30, 8, 8]) }

    /// YOLOv3 and YOLOv4's layers: mish, swish, a [route] with groups,
    /// [shortcut] linear and leaky, [upsample] stride 2.
    func testYOLOv4Layers() throws {
        try checkParity("yolov4_layers", layers: ["mish_0", "swish_2", "route_3_group_0", "shortcut_7", "shortcut_9", "leaky_9", "upsample_10"],
                        output: [6, 24, 40])
    }

    func checkParity(_ name: String, layers: [String], output shape: [Int], file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = darknetFixtures.appendingPathComponent(name)
        let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                 weights: folder.appendingPathComponent("model.weights").path, imageInput: false, region: .grid)
        for layer in layers { XCTAssertTrue(model.nodes.contains { $0.name == layer }, "\(name): no \(layer) in \(model.nodes.map(\.name))", file: file, line: line) }
        let path = checkDirectory.appendingPathComponent("darknet_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(try CoreMLReader.read(from: path).model)
        let (inputShape, input) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
        let prediction = try network.predict(["image": .array(Tensor(shape: TensorShape(inputShape), values: input))])
        let reference = try NumpyFile.read(path: folder.appendingPathComponent("output.npy").path)
        XCTAssertEqual(reference.shape, shape, file: file, line: line)
        let ours = try XCTUnwrap(prediction.outputs[model.outputs[0].name], file: file, line: line)
        XCTAssertEqual(ours.shape.dimensions, shape, file: file, line: line)
        if let worst = worstMismatch(ours.values, reference.values) {
            XCTFail("\(name): value \(worst.index) is \(worst.ours), OpenCV \(worst.reference)", file: file, line: line)
        }
    }

    /// By default the input is an RGB image scaled by 1/255, as Darknet
    /// feeds its networks.
    func testTheInputIsAnImageScaledToOne() throws {
        let folder = darknetFixtures.appendingPathComponent("tiny_yolo")
        let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                 weights: folder.appendingPathComponent("model.weights").path)
        let image = try XCTUnwrap(model.inputs.first?.image)
        XCTAssertEqual([image.width, image.height], [64, 64])
        XCTAssertEqual(image.colorSpace, .rgb)
        XCTAssertEqual(image.scale, 1 / 255, accuracy: 1e-9)
        XCTAssertEqual([image.redBias, image.greenBias, image.blueBias], [0, 0, 0])
    }
}

/// The `[region]` decoding as layers (`RegionOutput.rows`), run by the runtime,
/// against numpy's decoding of the same raw grid (make_darknet_fixtures.py,
/// which checks it against OpenCV's region layer: boxes and objectness
/// everywhere, class scores where OpenCV's own NMS kept them).
final class DarknetRegionTests: XCTestCase {
    func testDecodedBoxesAndConfidencesMatchNumpy() throws {
        for (name, rows, classes) in [("tiny_yolo", 16 * 16 * 5, 20), ("yolov2_reorg", 8 * 8 * 2, 10)] {
            let folder = darknetFixtures.appendingPathComponent(name)
            let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                     weights: folder.appendingPathComponent("model.weights").path, imageInput: false, region: .rows)
            XCTAssertEqual(model.outputs.map(\.name), ["raw_confidence", "raw_coordinates"])
            let path = checkDirectory.appendingPathComponent("darknet_\(name)_decoded.mlmodel").path
            try CoreMLWriter.write(model, to: path)
            let network = try Network(try CoreMLReader.read(from: path).model)
            let (shape, input) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
            let prediction = try network.predict(["image": .array(Tensor(shape: TensorShape(shape), values: input))])
            for (output, columns) in [("coordinates", 4), ("confidence", classes)] {
                let reference = try NumpyFile.read(path: folder.appendingPathComponent("decoded_\(output).npy").path)
                XCTAssertEqual(reference.shape, [rows, columns], "\(name)/\(output)")
                let ours = try XCTUnwrap(prediction.outputs["raw_" + output], "\(name)/\(output)")
                XCTAssertEqual(ours.shape.dimensions, [1, rows, columns], "\(name)/\(output)")
                if let worst = worstMismatch(ours.values, reference.values) {
                    XCTFail("\(name)/\(output): value \(worst.index) (row \(worst.index / columns)) is \(worst.ours), numpy \(worst.reference)")
                }
            }
        }
    }
}
