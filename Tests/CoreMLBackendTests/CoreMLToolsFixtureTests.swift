import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// Our reader against files written by Apple's coremltools
/// (`scripts/fixtures/make_coreml_fixtures.py`), compared with the
/// description coremltools itself dumped beside each file.
final class CoreMLToolsFixtureTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml")

    func description(_ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(name).json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testBuilderClassifierMatchesItsDescription() throws {
        let file = try CoreMLReader.read(from: folder.appendingPathComponent("builder_classifier.mlmodel").path)
        let spec = try description("builder_classifier")
        let model = file.model
        XCTAssertEqual(file.specificationVersion, spec["specificationVersion"] as? Int)
        XCTAssertEqual(model.inputs.map(\.name), ["image"])
        let image = try XCTUnwrap(model.inputs[0].image)
        XCTAssertEqual([image.width, image.height], [16, 16])
        XCTAssertEqual(image.colorSpace, .rgb)
        XCTAssertEqual(image.scale, 1.0 / 255, accuracy: 1e-7)
        XCTAssertEqual([image.redBias, image.greenBias, image.blueBias], [-0.5, -0.4, -0.3])
        XCTAssertEqual(model.classifier?.labels, .strings(["cat", "dog", "bird"]))
        XCTAssertEqual(model.classifier?.predictedFeatureName, "classLabel")
        XCTAssertEqual(model.metadata.author, "fixtures")
        XCTAssertEqual(model.metadata.license, "MIT")
        try compareLayers(model, with: spec["neuralNetworkClassifier"] as? [String: Any])
        XCTAssertNoThrow(try model.validate(), "coremltools' classifier should hold together in our model spec")
    }

    /// coremltools' own float16 weights: widened to the values it dumped, and
    /// known to be stored as float16 (full and structure-only reads).
    func testBuilderHalfWidensFloat16WeightsAndSaysSo() throws {
        let path = folder.appendingPathComponent("builder_half.mlmodel").path
        let spec = try description("builder_half")
        let file = try CoreMLReader.read(from: path)
        XCTAssertEqual(file.specificationVersion, 2)
        try compareLayers(file.model, with: spec["neuralNetworkClassifier"] as? [String: Any])
        for structureOnly in [false, true] {
            let model = try CoreMLReader.read(from: path, structureOnly: structureOnly).model
            var stored: [String] = []
            for node in model.nodes {
                switch node.operation {
                case .convolution(let c): stored += ["\(node.name) \(c.weights.storedPrecision) \(c.bias?.storedPrecision as Any)"]
                case .innerProduct(let p): stored += ["\(node.name) \(p.weights.storedPrecision) \(p.bias?.storedPrecision as Any)"]
                default: break
                }
            }
            XCTAssertEqual(stored, ["conv1 float16 Optional(ModelFormat.Precision.float16)", "fc1 float16 Optional(ModelFormat.Precision.float16)"])
        }
        let plain = try CoreMLReader.read(from: folder.appendingPathComponent("builder_classifier.mlmodel").path).model
        guard case .innerProduct(let ip) = plain.nodes.first(where: { $0.name == "fc1" })?.operation else { return XCTFail("no fc1") }
        XCTAssertEqual(ip.weights.storedPrecision, .float32)
        XCTAssertEqual(file.featureTypes["image"], .image(colorSpace: "RGB", width: 16, height: 16))
        XCTAssertEqual(file.featureTypes["classLabelProbs"], .dictionary(keyType: "string"))
    }

    func testBuilderLayersMatchesItsDescriptionAndShapes() throws {
        let file = try CoreMLReader.read(from: folder.appendingPathComponent("builder_layers.mlmodel").path)
        let spec = try description("builder_layers")
        try compareLayers(file.model, with: spec["neuralNetwork"] as? [String: Any])
        // Output shapes coremltools recorded must agree with our shape inference.
        let shapes = try file.model.validate()
        let outputs = try XCTUnwrap((spec["description"] as? [String: Any])?["output"] as? [[String: Any]])
        for output in outputs {
            let name = try XCTUnwrap(output["name"] as? String)
            let shape = ((output["type"] as? [String: Any])?["multiArrayType"] as? [String: Any])?["shape"] as? [Int]
            XCTAssertEqual(shapes[name]?.dimensions, shape, "output \(name)")
        }
    }

    /// Names, inputs, outputs, layer kinds and weight counts and sums of every layer.
    func compareLayers(_ model: Model, with network: [String: Any]?) throws {
        let layers = try XCTUnwrap(network?["layers"] as? [[String: Any]])
        XCTAssertEqual(model.nodes.count, layers.count)
        for (node, layer) in zip(model.nodes, layers) {
            XCTAssertEqual(node.name, layer["name"] as? String)
            XCTAssertEqual(node.inputs, layer["input"] as? [String] ?? [], node.name)
            XCTAssertEqual(node.outputs, layer["output"] as? [String] ?? [], node.name)
            XCTAssertNotNil(layer[coreMLKey(node.operation)], "\(node.name) read as \(node.operation.kindName)")
            for (weights, stats) in weightStatistics(of: node.operation, in: layer) {
                XCTAssertEqual(weights.count, stats["count"] as? Int, node.name)
                let sum = weights.values.reduce(0.0) { $0 + Double($1) }
                XCTAssertEqual(sum, stats["sum"] as? Double ?? .nan, accuracy: 1e-4 * max(1, abs(sum)), node.name)
            }
        }
    }

    func coreMLKey(_ operation: Op) -> String {
        if case .activation = operation { return "activation" }
        return EveryLayerModel.coreMLType(operation)
    }

    /// Pairs our weights with the statistics coremltools dumped for them.
    func weightStatistics(of operation: Op, in layer: [String: Any]) -> [(Weights, [String: Any])] {
        func stats(_ path: String...) -> [String: Any]? {
            var value: Any? = layer
            for key in path { value = (value as? [String: Any])?[key] }
            return value as? [String: Any]
        }
        var pairs: [(Weights, [String: Any]?)] = []
        switch operation {
        case .convolution(let c):
            pairs = [(c.weights, stats("convolution", "weights"))] + (c.bias.map { [($0, stats("convolution", "bias"))] } ?? [])
        case .innerProduct(let p):
            pairs = [(p.weights, stats("innerProduct", "weights"))] + (p.bias.map { [($0, stats("innerProduct", "bias"))] } ?? [])
        case .batchNorm(let b):
            pairs = [(b.gamma, stats("batchnorm", "gamma")), (b.beta, stats("batchnorm", "beta")),
                     (b.mean, stats("batchnorm", "mean")), (b.variance, stats("batchnorm", "variance"))]
        case .activation(.prelu(let alpha)):
            pairs = [(alpha, stats("activation", "PReLU", "alpha"))]
        case .scale(let s):
            pairs = [(s.scale, stats("scale", "scale"))] + (s.bias.map { [($0, stats("scale", "bias"))] } ?? [])
        case .bias(let b):
            pairs = [(b.bias, stats("bias", "bias"))]
        default:
            break
        }
        return pairs.compactMap { weights, stats in stats.map { (weights, $0) } }
    }
}
