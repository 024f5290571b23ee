import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

final class RoundTripTests: XCTestCase {
    /// At specification 4 every layer is written as it is, clip included,
    /// on Core ML's rank-N path: the array input takes [1, C, H, W] with
    /// EXACT_ARRAY_MAPPING (what Core ML's validator requires of a network
    /// with a version-4 layer), outputs [1, C, H, W]; read back, the same model.
    func testEveryLayerKindRoundTrips() throws {
        let model = EveryLayerModel.make()
        XCTAssertNoThrow(try model.validate())
        let path = checkDirectory.appendingPathComponent("every_layer.mlmodel").path
        try CoreMLWriter.write(model, to: path, minimumSpecificationVersion: 4)
        try writeExpectation(for: model, specificationVersion: 4, rankN: true,
                             to: checkDirectory.appendingPathComponent("every_layer.expect.json"))

        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 4)
        XCTAssertEqual(file.model.nodes.count, model.nodes.count)
        for (read, written) in zip(file.model.nodes, model.nodes) {
            XCTAssertEqual(read, written, "layer \(written.name)")
        }
        XCTAssertEqual(file.model, model)
    }

    /// By default the lowest version: 1, with the clip written as relu,
    /// linear(-1), threshold(-max), linear(-1); read back, that lowered model.
    func testByDefaultClipIsLoweredToSpecificationOne() throws {
        let model = EveryLayerModel.make()
        XCTAssertEqual(SpecificationVersion.chosen(for: model), 1)
        let path = checkDirectory.appendingPathComponent("every_layer_v1.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let lowered = SpecificationVersion.lowered(model, for: 1)
        XCTAssertEqual(lowered.nodes.count, model.nodes.count + 3)
        try writeExpectation(for: lowered, specificationVersion: 1, rankN: false,
                             to: checkDirectory.appendingPathComponent("every_layer_v1.expect.json"))
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 1)
        XCTAssertEqual(file.model, lowered)
        XCTAssertFalse(file.model.nodes.contains { if case .activation(.clip) = $0.operation { true } else { false } })
    }

    func testWithoutClipTheLowestSpecificationVersionIsOne() throws {
        let model = EveryLayerModel.make(includeClip: false)
        XCTAssertEqual(SpecificationVersion.chosen(for: model), 1)
        let path = try temporaryFolder().appendingPathComponent("v1.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        XCTAssertEqual(try CoreMLReader.read(from: path).specificationVersion, 1)
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    func testIntegerLabelsAndCustomFeatureNamesRoundTrip() throws {
        let model = Model(
            inputs: [Input(name: "features", kind: .array(shape: [3]))],
            outputs: [Output(name: "logits", shape: [4])],
            nodes: [
                Node("logits", .innerProduct(InnerProduct(inputChannels: 3, outputChannels: 4, weights: randomWeights(12, seed: 9))),
                     input: "features"),
                Node(name: "softmax", operation: .softmax, inputs: ["logits"], outputs: ["scores"]),
            ],
            classifier: Classifier(labels: .integers([10, 20, 30, 40]), predictedFeatureName: "digit", probabilitiesName: "scores"))
        let path = checkDirectory.appendingPathComponent("integer_labels.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "kind": "neuralNetworkClassifier",
            "inputs": [["name": "features", "type": "multiArray", "shape": [3], "dataType": "DOUBLE"]],
            "outputs": [["name": "scores", "type": "dictionary", "keyType": "int64"], ["name": "digit", "type": "int64"],
                        ["name": "logits", "type": "multiArray", "shape": [4], "dataType": "DOUBLE"]],
            "classLabels": [10, 20, 30, 40], "predictedFeatureName": "digit", "predictedProbabilitiesName": "scores",
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("integer_labels.expect.json"))
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    func testImageInputsWithMeanImageAndGrayscaleRoundTrip() throws {
        let mean = randomWeights(3 * 4 * 5, seed: 3, scale: 100)
        let model = Model(
            inputs: [Input(name: "photo", kind: .image(ImageInput(width: 5, height: 4, colorSpace: .rgb, scale: 2,
                                                                   redBias: -1, greenBias: -2, blueBias: -3, meanImage: mean))),
                     Input(name: "mask", kind: .image(ImageInput(width: 5, height: 4, colorSpace: .grayscale, grayBias: -0.5)))],
            outputs: [Output(name: "both", shape: [4, 4, 5])],
            nodes: [Node(name: "both", operation: .concat, inputs: ["photo", "mask"], outputs: ["both"])])
        let path = checkDirectory.appendingPathComponent("two_images.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let expectation: [String: Any] = [
            "inputs": [["name": "photo", "type": "image", "width": 5, "height": 4, "colorSpace": "RGB"],
                       ["name": "mask", "type": "image", "width": 5, "height": 4, "colorSpace": "GRAYSCALE"]],
            "preprocessing": [["featureName": "photo", "scaler": ["channelScale": 2, "redBias": -1, "greenBias": -2, "blueBias": -3]],
                              ["featureName": "photo", "meanImageCount": 60],
                              ["featureName": "mask", "scaler": ["channelScale": 1, "grayBias": -0.5]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("two_images.expect.json"))
        XCTAssertEqual(try CoreMLReader.read(from: path).model, model)
    }

    /// Expectations for the coremltools check, written from the model by
    /// test code that does not share the writer's mapping tables.
    func writeExpectation(for model: Model, specificationVersion: Int, rankN: Bool, to url: URL) throws {
        let layers: [[String: Any]] = model.nodes.map { node in
            var entry: [String: Any] = ["name": node.name, "type": EveryLayerModel.coreMLType(node.operation),
                                        "inputs": node.inputs, "outputs": node.outputs]
            switch node.operation {
            case .convolution(let c):
                entry["weightCounts"] = ["weights": c.weights.count] .merging(c.bias.map { ["bias": $0.count] } ?? [:]) { a, _ in a }
                entry["params"] = ["outputChannels": c.outputChannels, "kernelChannels": c.kernelChannels, "nGroups": c.groups,
                                   "kernelSize": [c.kernel.height, c.kernel.width], "stride": [c.stride.height, c.stride.width],
                                   "dilationFactor": [c.dilation.height, c.dilation.width], "isDeconvolution": c.isDeconvolution]
            case .innerProduct(let p):
                entry["weightCounts"] = ["weights": p.weights.count]
                entry["params"] = ["inputChannels": p.inputChannels, "outputChannels": p.outputChannels, "hasBias": p.bias != nil]
            case .lrn(let l):
                entry["params"] = ["alpha": l.alpha, "beta": l.beta, "localSize": l.localSize, "k": l.k]
            case .activation(.leakyRelu(let alpha)):
                entry["params"] = ["leakyReLU.alpha": alpha]
            case .activation(.clip(let low, let high)):
                entry["params"] = ["minVal": low, "maxVal": high]
            case .defined(let op) where (op.definition as? Slice)?.mapAxis != nil:
                let s = op.definition as! Slice
                entry["params"] = ["startIndex": s.begin[0], "endIndex": s.end[0], "stride": s.strides[0]]
            case .padding(let p):
                entry["params"] = ["paddingAmounts.borderAmounts": [
                    ["startEdgeSize": p.edges.top, "endEdgeSize": p.edges.bottom],
                    ["startEdgeSize": p.edges.left, "endEdgeSize": p.edges.right]]]
            default:
                break
            }
            return entry
        }
        let expectation: [String: Any] = [
            "specificationVersion": specificationVersion, "kind": "neuralNetwork", "layerCount": model.nodes.count,
            "arrayInputShapeMapping": rankN ? "EXACT_ARRAY_MAPPING" : "RANK5_ARRAY_MAPPING",
            "imageInputShapeMapping": rankN ? "RANK4_IMAGE_MAPPING" : "RANK5_IMAGE_MAPPING",
            "inputs": model.inputs.map { input -> [String: Any] in
                guard case .array(let shape) = input.kind else { return ["name": input.name, "type": "image"] }
                return ["name": input.name, "type": "multiArray", "shape": rankN ? [1] + shape : shape]
            },
            "outputs": model.outputs.map { output -> [String: Any] in
                var entry: [String: Any] = ["name": output.name, "type": "multiArray", "dataType": "DOUBLE"]
                if !output.shape.isEmpty {
                    entry["shape"] = rankN ? [1] + output.shape + Array(repeating: 1, count: 3 - output.shape.count) : output.shape
                }
                return entry
            },
            "metadata": ["author": model.metadata.author, "license": model.metadata.license,
                         "shortDescription": model.metadata.shortDescription, "versionString": model.metadata.version,
                         "userDefined": Dictionary(uniqueKeysWithValues: model.metadata.userDefined.map { ($0.key, $0.value) })],
            "layers": layers,
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys]).write(to: url)
    }
}
