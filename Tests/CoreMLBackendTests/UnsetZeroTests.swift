import CoreMLBackend
import Foundation
import ModelFormat
import TestSupport
import XCTest

/// proto3 fields Core ML reads as "unset" at 0 (`UnsetZero`): a real 0 is
/// written so that Core ML applies 0, and our reader applies Core ML's
/// defaults to the zeros in files others wrote.
final class UnsetZeroTests: XCTestCase {
    static let least = Double(Float.leastNonzeroMagnitude)

    /// One layer per field: each holds a real 0 where Core ML defaults 0
    /// (LRN's k is not among them: the model refuses a k that is not positive).
    static func zerosModel() -> Model {
        let w = { (count: Int, seed: UInt64) in randomWeights(count, seed: seed) }
        func node(_ name: String, _ operation: Op) -> Node {
            Node(name: name, operation: operation, inputs: ["x"], outputs: [name])
        }
        let nodes = [
            // Caffe's Power with scale 0: (shift + 0 * x)^power = 3^2.
            node("power", .unary(Unary(kind: .power, alpha: 2, shift: 3, scale: 0))),
            node("inverse", .unary(Unary(kind: .inverse))),
            node("rsqrt", .unary(Unary(kind: .rsqrt))),
            node("log", .unary(Unary(kind: .log))),
            node("bn", .batchNorm(BatchNorm(channels: 2, epsilon: 0, gamma: w(2, 1), beta: w(2, 2), mean: w(2, 3),
                                            variance: Weights([0.5, 2])))),
            node("l2", .l2Normalize(epsilon: 0)),
            node("logsum", .reduce(Reduce(mode: .logSum, axes: [-1], epsilon: 0))),
        ]
        return Model(inputs: [Input(name: "x", kind: .array(shape: [2, 3, 3]))],
                     outputs: nodes.map { Output(name: $0.name) }, nodes: nodes)
    }

    func testRealZerosAreWrittenSoThatCoreMLAppliesZero() throws {
        let model = Self.zerosModel()
        XCTAssertNoThrow(try model.validate())
        let path = checkDirectory.appendingPathComponent("unset_zeros.mlmodel").path
        try CoreMLWriter.write(model, to: path)
        // For scripts/check_mlmodels.py: the fields as coremltools decodes them.
        let least = Self.least
        let expectation: [String: Any] = [
            "layerCount": model.nodes.count + 1,
            "layers": [
                ["name": "power__shift", "type": "activation", "inputs": ["x"], "params": ["linear.beta": 3]],
                ["name": "power", "type": "unary", "inputs": ["power__shift"], "params": ["scale": 1, "alpha": 2]],
                ["name": "inverse", "type": "unary", "params": ["epsilon": least]],
                ["name": "rsqrt", "type": "unary", "params": ["epsilon": least]],
                ["name": "log", "type": "unary", "params": ["epsilon": least]],
                ["name": "bn", "type": "batchnorm", "params": ["epsilon": least]],
                ["name": "l2", "type": "l2normalize", "params": ["epsilon": least]],
                ["name": "logsum", "type": "reduce", "params": ["epsilon": least]],
            ],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("unset_zeros.expect.json"))

        // Read back as Core ML applies it: the model as written, the power after a linear layer 0 * x + 3,
        // each epsilon 1e-45 (which changes nothing but an input of exactly 0 or a subnormal).
        let read = try CoreMLReader.read(from: path).model
        XCTAssertEqual(read, SpecificationVersion.lowered(model, for: 1))
        XCTAssertEqual(read.nodes.count, model.nodes.count + 1)
        XCTAssertEqual(read.nodes[0].operation, .activation(.linear(alpha: 0, beta: 3)))
        XCTAssertEqual(read.nodes[1].operation, .unary(Unary(kind: .power, alpha: 2, shift: 0, scale: 1)))
        XCTAssertEqual(read.nodes[1].inputs, [read.nodes[0].name])
        let tiny = Float.leastNonzeroMagnitude
        XCTAssertEqual(read.nodes.dropFirst(2).map(\.operation), [
            .unary(Unary(kind: .inverse, epsilon: tiny)), .unary(Unary(kind: .rsqrt, epsilon: tiny)), .unary(Unary(kind: .log, epsilon: tiny)),
            .batchNorm(BatchNorm(channels: 2, epsilon: tiny, gamma: randomWeights(2, seed: 1), beta: randomWeights(2, seed: 2),
                                 mean: randomWeights(2, seed: 3), variance: Weights([0.5, 2]))),
            .l2Normalize(epsilon: tiny), .reduce(Reduce(mode: .logSum, axes: [-1], epsilon: tiny)),
        ])
    }

    /// The lowering's linear layer takes a free name.
    func testTheShiftLayersNameIsMadeUnique() {
        let model = Model(inputs: [Input(name: "p__shift", kind: .array(shape: [1]))], outputs: [Output(name: "p")],
                          nodes: [Node(name: "p", operation: .unary(Unary(kind: .exp, shift: 1, scale: 0)), inputs: ["p__shift"], outputs: ["p"])])
        let lowered = SpecificationVersion.lowered(model, for: 1)
        XCTAssertEqual(lowered.nodes.map(\.name), ["p__shift2", "p"])
        XCTAssertNoThrow(try lowered.validate())
    }

    func testAnImageScaleOfZeroIsRefused() throws {
        for scale: Float in [0, -0.0, .infinity, .nan] {
            let model = Model(inputs: [Input(name: "photo", kind: .image(ImageInput(width: 2, height: 2, scale: scale)))],
                              outputs: [Output(name: "y")],
                              nodes: [Node(name: "y", operation: .activation(.relu), inputs: ["photo"], outputs: ["y"])])
            let path = try temporaryFolder().appendingPathComponent("m.mlmodel").path
            XCTAssertThrowsError(try CoreMLWriter.write(model, to: path), "\(scale)") { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("input 'photo': ") && !text.contains("\n"), text)
                XCTAssertTrue(scale.isFinite ? text.contains("image scale of 0 cannot be written") : text.contains("must be finite"), text)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        }
    }

    /// Tests/Fixtures/coreml/unset_zeros: layers coremltools' builder wrote
    /// with 0 in each field (scripts/fixtures/make_proto_zero_fixtures.py):
    /// read as Core ML applies them, NeuralNetwork.proto's defaults.
    func testZerosInAFileAreReadAsCoreMLsDefaults() throws {
        let path = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml/unset_zeros/model.mlmodel").path
        let model = try CoreMLReader.read(from: path).model
        func op(_ name: String) throws -> Op { try XCTUnwrap(model.nodes.first { $0.name == name }).operation }
        XCTAssertEqual(try op("power"), .unary(Unary(kind: .power, alpha: 2, epsilon: 0, shift: 3, scale: 1)), "power adds no epsilon")
        XCTAssertEqual(try op("rsqrt"), .unary(Unary(kind: .rsqrt, alpha: 1, epsilon: 1e-6)))
        XCTAssertEqual(try op("log_least"), .unary(Unary(kind: .log, alpha: 1, epsilon: .leastNonzeroMagnitude)), "coremltools' 1e-45 for log, as stored")
        guard case .batchNorm(let norm) = try op("bn") else { return XCTFail("bn") }
        XCTAssertEqual(norm.epsilon, 1e-5)
        XCTAssertEqual(try op("lrn"), .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 3, k: 1)))
        XCTAssertEqual(try op("l2"), .l2Normalize(epsilon: 1e-6))
        XCTAssertEqual(try op("logsum"), .reduce(Reduce(mode: .logSum, axes: [-1], epsilon: 1e-6)))
        XCTAssertEqual(model.inputs.first { $0.name == "image" }?.image?.scale, 1, "a channelScale of 0")
        XCTAssertEqual(model.inputs.first { $0.name == "image" }?.image?.redBias, 0.5)
    }
}
