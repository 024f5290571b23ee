import CoreMLBackend
import Foundation
import Images
import Conversion
import ModelFiles
import ModelFormat
import Runtime
import TensorFlowFrontend
import TestSupport
import XCTest

let tensorflowFixtures = repositoryRoot.appendingPathComponent("Tests/Fixtures/tensorflow")

/// Each frozen graph in Tests/Fixtures/tensorflow (written by TensorFlow,
/// with TensorFlow's own outputs) is converted from its binary and its text
/// form, written, read back by the runtime from the file and run:
/// |ours - ref| <= 1e-4 * max(1, |ref|).
final class TensorFlowParityTests: XCTestCase {
    func testInceptionResNetBlock() throws { try checkParity("inception_resnet_block") }
    func testMobileNetBlockWithUnfusedBatchNormAndReLU6() throws { try checkParity("mobilenet_block") }
    /// For iOS 13 the ReLU6 stays a clip layer, on Core ML's rank-N path
    /// (EXACT_ARRAY_MAPPING; the image input is [1, C, H, W] with
    /// RANK4_IMAGE_MAPPING), and computes the same.
    func testMobileNetBlockWrittenForIOS13() throws {
        try checkParity("mobilenet_block", minimumSpecificationVersion: 4)
        let expectation: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING", "imageInputShapeMapping": "RANK4_IMAGE_MAPPING",
            "inputs": [["name": "input", "type": "image", "width": 33, "height": 33]],
            "layers": [["name": "MobilenetV1/Conv2d_3_depthwise/Relu6", "type": "clip", "params": ["minVal": 0.0, "maxVal": 6.0]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("tensorflow_mobilenet_block_ios13.expect.json"))
    }
    func testVGGHeadWithShapeArithmeticAndMatMul() throws { try checkParity("vgg_head") }
    func testMiscellaneousOps() throws { try checkParity("misc_ops") }
    /// IdentityN, a call into the function library, layer normalization's
    /// ops, Tensordot, the GELU pattern, Sqrt, Square, Neg.
    func testKeras3LayersFrozen() throws { try checkParity("keras3_graph") }
    /// Conv2DBackpropInput, tf.repeat (nearest UpSampling2D), ResizeNearestNeighbor,
    /// MirrorPad, Transpose, Max, a constant divided by a tensor.
    func testKeras3MapOpsFrozen() throws { try checkParity("keras3_map_ops") }
    func testTextGraphsConvertLikeBinaryOnes() throws {
        for name in ["inception_resnet_block", "vgg_head"] { try checkParity(name, text: true) }
    }

    func testFeatureNamesComeFromTensorNames() {
        XCTAssertEqual(TensorFlowConverter.featureName("input:0"), "input")
        XCTAssertEqual(TensorFlowConverter.featureName("input"), "input")
        XCTAssertEqual(TensorFlowConverter.featureName("InceptionResnetV2/Logits/Predictions:0"), "InceptionResnetV2_Logits_Predictions")
        XCTAssertEqual(TensorFlowConverter.featureName("a/b:1"), "a_b_1")
    }

    func testUnfusedBatchNormAndBiasesFoldAway() throws {
        let (model, _) = try convert("mobilenet_block", text: false)
        let leftovers = model.nodes.filter { if case .scale = $0.operation { true } else if case .bias = $0.operation { true } else { false } }
        XCTAssertEqual(leftovers.map(\.name), [], "scales and biases after convolutions fold into them")
    }

    func convert(_ name: String, text: Bool) throws -> (Model, [String: Any]) {
        let folder = tensorflowFixtures.appendingPathComponent(name)
        let meta = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as? [String: Any])
        let settings = try XCTUnwrap(meta["options"] as? [String: Any])
        var options = ConversionOptions()
        if let input = settings["imageInput"] as? String { options.imageInputNames = [TensorFlowConverter.featureName(input)] }
        // Preprocessing a case states for a model without an image input is coremltools' defaults, not given.
        if !options.imageInputNames.isEmpty {
            options.isBGR = settings["isBGR"] as? Bool ?? false
            options.redBias = (settings["redBias"] as? Double).map { Float($0) }
            options.greenBias = (settings["greenBias"] as? Double).map { Float($0) }
            options.blueBias = (settings["blueBias"] as? Double).map { Float($0) }
            options.imageScale = (settings["imageScale"] as? Double).map { Float($0) }
        }
        if let labels = settings["classLabels"] as? String {
            options.classLabels = .strings(try LabelFile.read(path: folder.appendingPathComponent(labels).path))
        }
        let shapes = (settings["inputShapes"] as? [String: [Int]] ?? [:]).map { TensorFlowConverter.InputShape(name: $0.key, shape: $0.value) }
        let graph = folder.appendingPathComponent(text ? "graph.pbtxt" : "graph.pb").path
        let model = try TensorFlowConverter.convert(graph: graph, inputs: shapes, outputs: settings["outputNames"] as? [String] ?? [],
                                                    options: options)
        return (model, meta)
    }

    func checkParity(_ name: String, text: Bool = false, minimumSpecificationVersion: Int32 = 1,
                     file: StaticString = #filePath, line: UInt = #line) throws {
        let folder = tensorflowFixtures.appendingPathComponent(name)
        let (model, meta) = try convert(name, text: text)
        let suffix = (text ? "_text" : "") + (minimumSpecificationVersion == 4 ? "_ios13" : "")
        let path = checkDirectory.appendingPathComponent("tensorflow_\(name)\(suffix).mlmodel").path
        try CoreMLWriter.write(model, to: path, minimumSpecificationVersion: minimumSpecificationVersion)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first)
        let (shape, hwc) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
        let (h, w, c) = (shape[0], shape[1], shape[2])
        let value: InputValue
        if input.image != nil {
            value = .image(Image(width: w, height: h, channels: c, pixels: hwc.map { UInt8($0.rounded()) }))
        } else {
            value = .array(Tensor(shape: TensorShape(channels: c, height: h, width: w), values: chw(hwc, h, w, c)))
        }
        let prediction = try network.predict([input.name: value])
        for output in meta["outputs"] as? [[String: Any]] ?? [] {
            let tensor = try XCTUnwrap(output["tensor"] as? String)
            var feature = TensorFlowConverter.featureName(tensor)
            if model.classifier != nil { feature = "classLabelProbs" }
            let (refShape, hwcReference) = try NumpyFile.read(path: folder.appendingPathComponent(try XCTUnwrap(output["file"] as? String)).path)
            let reference = refShape.count == 3 ? chw(hwcReference, refShape[0], refShape[1], refShape[2]) : hwcReference
            let ours = try XCTUnwrap(prediction.outputs[feature]?.values, "\(name): no output \(feature)", file: file, line: line)
            XCTAssertEqual(ours.count, reference.count, "\(name)/\(feature)", file: file, line: line)
            if let worst = worstMismatch(ours, reference) {
                XCTFail("\(name)\(text ? " (text)" : "")/\(feature): value \(worst.index) is \(worst.ours), TensorFlow gives \(worst.reference)",
                        file: file, line: line)
            }
        }
        if let expected = (meta["expected"] as? [String: Any])?["expectedTopLabel"] as? String {
            XCTAssertEqual(prediction.classLabel, expected, file: file, line: line)
        }
    }
}
