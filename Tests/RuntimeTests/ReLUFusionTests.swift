import ModelFormat
import Runtime
import XCTest

/// A convolution or inner product whose output only a ReLU reads runs as one
/// step with the ReLU folded in. The folded network must compute exactly
/// what the same layers compute one by one (made unfusable here by also
/// exposing the layer's own output).
final class ReLUFusionTests: XCTestCase {
    static func weights(_ count: Int, seed: Int) -> Weights {
        Weights((0..<count).map { Float(($0 * 7919 + seed * 104_729) % 201) / 100 - 1 })
    }

    /// x [2, 4, 4] -> conv (3x3 pad 1, with or without bias) -> relu -> flatten -> fc 5 -> relu.
    static func model(convolutionBias: Bool, exposeInner: Bool) -> Model {
        let conv = Convolution(outputChannels: 3, kernelChannels: 2, kernel: Size2(square: 3), padding: .explicit(Edges(all: 1)),
                               weights: weights(54, seed: 1), bias: convolutionBias ? weights(3, seed: 2) : nil)
        let fc = InnerProduct(inputChannels: 48, outputChannels: 5, weights: weights(240, seed: 3), bias: weights(5, seed: 4))
        var outputs = [Output(name: "out")]
        if exposeInner { outputs += [Output(name: "conv"), Output(name: "fc")] }
        return Model(inputs: [Input(name: "x", kind: .array(shape: [2, 4, 4]))], outputs: outputs, nodes: [
            Node("conv", .convolution(conv), input: "x"),
            Node("relu1", .activation(.relu), input: "conv"),
            Node("flat", .flatten(.channelFirst), input: "relu1"),
            Node("fc", .innerProduct(fc), input: "flat"),
            Node(name: "relu2", operation: .activation(.relu), inputs: ["fc"], outputs: ["out"]),
        ])
    }

    func testFoldedReLUComputesWhatTheSeparateLayersDo() throws {
        let input = Tensor(shape: TensorShape(channels: 2, height: 4, width: 4), values: (0..<32).map { Float($0 % 9) - 4 })
        for bias in [true, false] {
            var steps: [String] = []
            let fused = try Network(Self.model(convolutionBias: bias, exposeInner: false))
                .predict(["x": .array(input)], profile: { name, _ in steps.append(name) })
            XCTAssertEqual(steps, ["conv+relu1", "flat", "fc+relu2"], "the ReLUs were folded")

            var separateSteps: [String] = []
            let separate = try Network(Self.model(convolutionBias: bias, exposeInner: true))
                .predict(["x": .array(input)], profile: { name, _ in separateSteps.append(name) })
            XCTAssertEqual(separateSteps, ["conv", "relu1", "flat", "fc", "relu2"], "an exposed output is not folded away")
            let out = try XCTUnwrap(fused.outputs["out"]?.values)
            XCTAssertEqual(out, separate.outputs["out"]?.values, "bias \(bias)")
            XCTAssertTrue(out.contains(0) && out.contains { $0 > 0 }, "the ReLU clipped something: \(out)")
        }
    }
}
