import ModelFormat
import XCTest

/// The folding passes, one by one, on two-layer graphs whose folded values
/// follow from the definitions in the passes' documentation. Each test also
/// keeps a copy of the model from before the pass: folding rewrites weights
/// in place when it can, and must never change a copy that shares them.
final class PassTests: XCTestCase {
    /// data [2, 3, 3] -> conv (2 output channels, 1x1, weights [1, 2, 3, 4]) -> `second` -> model output.
    static func convolutionThen(_ second: Op, bias: [Float]? = [10, 20]) -> Model {
        let conv = Convolution(outputChannels: 2, kernelChannels: 2, kernel: Size2(square: 1),
                               weights: Weights([1, 2, 3, 4]), bias: bias.map(Weights.init))
        return Model(inputs: [Input(name: "data", kind: .array(shape: [2, 3, 3]))], outputs: [Output(name: "second")],
                     nodes: [Node("conv", .convolution(conv), input: "data"), Node("second", second, input: "conv")])
    }

    static func convolution(_ model: Model) throws -> Convolution {
        XCTAssertEqual(model.nodes.count, 1, "the pair merged into one node")
        XCTAssertEqual(model.nodes.first?.outputs, ["second"], "the merged node writes the second layer's output")
        guard case .convolution(let conv)? = model.nodes.first?.operation else { throw XCTSkip("not a convolution") }
        return conv
    }

    func assertUnchanged(_ before: Model, file: StaticString = #filePath, line: UInt = #line) throws {
        guard case .convolution(let conv) = before.nodes[0].operation else { return XCTFail("not a convolution", file: file, line: line) }
        XCTAssertEqual(conv.weights.values, [1, 2, 3, 4], "a copy sharing the weights was changed", file: file, line: line)
        XCTAssertEqual(before.nodes.count, 2, file: file, line: line)
    }

    func testBatchNormFoldsIntoTheConvolution() throws {
        // s = gamma / sqrt(var + eps) with gamma [2, 6], var [3, 8], eps 1 -> s = [1, 2];
        // W' = W[c] * s[c] = [1, 2, 6, 8];
        // b' = (b - mean) * s + beta = ([10, 20] - [4, 5]) * [1, 2] + [0.5, -1] = [6.5, 29].
        let norm = BatchNorm(channels: 2, epsilon: 1, gamma: Weights([2, 6]), beta: Weights([0.5, -1]),
                             mean: Weights([4, 5]), variance: Weights([3, 8]))
        let before = Self.convolutionThen(.batchNorm(norm))
        var model = before
        XCTAssertTrue(foldBatchNormIntoConvolution(&model))
        let conv = try Self.convolution(model)
        XCTAssertEqual(conv.weights.values, [1, 2, 6, 8])
        XCTAssertEqual(conv.bias?.values, [6.5, 29])
        try assertUnchanged(before)
        XCTAssertFalse(foldBatchNormIntoConvolution(&model), "nothing left to fold")
    }

    func testScaleFoldsIntoTheConvolutionWithOrWithoutBias() throws {
        let scale = Scale(shape: [2], scale: Weights([3, -1]), biasShape: [2], bias: Weights([1, 2]))
        let before = Self.convolutionThen(.scale(scale), bias: nil)
        var model = before
        XCTAssertTrue(foldScaleIntoConvolution(&model))
        let conv = try Self.convolution(model)
        XCTAssertEqual(conv.weights.values, [3, 6, -3, -4])
        XCTAssertEqual(conv.bias?.values, [1, 2], "0 * s + bias")
        try assertUnchanged(before)

        // A scalar scale applies to every channel; the old bias is scaled.
        var scalar = Self.convolutionThen(.scale(Scale(shape: [1], scale: Weights([0.5]))))
        XCTAssertTrue(foldScaleIntoConvolution(&scalar))
        XCTAssertEqual(try Self.convolution(scalar).weights.values, [0.5, 1, 1.5, 2])
        XCTAssertEqual(try Self.convolution(scalar).bias?.values, [5, 10])
    }

    func testBiasFoldsIntoTheConvolution() throws {
        let before = Self.convolutionThen(.bias(Bias(shape: [2], bias: Weights([1, -1]))))
        var model = before
        XCTAssertTrue(foldBiasIntoLinearLayer(&model))
        let conv = try Self.convolution(model)
        XCTAssertEqual(conv.bias?.values, [11, 19])
        XCTAssertEqual(conv.weights.values, [1, 2, 3, 4])
        try assertUnchanged(before)
    }

    func testScaleMergesIntoABatchNorm() {
        let norm = BatchNorm(channels: 2, epsilon: 1e-3, gamma: Weights([2, 4]), beta: Weights([1, 1]),
                             mean: Weights([0, 0]), variance: Weights([1, 1]))
        var model = Model(inputs: [Input(name: "data", kind: .array(shape: [2, 3, 3]))], outputs: [Output(name: "scale")],
                          nodes: [Node("bn", .batchNorm(norm), input: "data"),
                                  Node("scale", .scale(Scale(shape: [2], scale: Weights([3, 0.5]), biasShape: [2], bias: Weights([1, 2]))), input: "bn")])
        XCTAssertTrue(mergeScaleIntoBatchNorm(&model))
        guard case .batchNorm(let merged)? = model.nodes.first?.operation, model.nodes.count == 1 else { return XCTFail("\(model.nodes)") }
        XCTAssertEqual(merged.gamma.values, [6, 2], "gamma * s")
        XCTAssertEqual(merged.beta.values, [4, 2.5], "beta * s + bias")
    }

    /// data [2, 3, 3] -> padding (`kind`, top 1, bottom 2, left 3, right 0) -> conv (`padding`) -> model output.
    static func paddingThenConvolution(_ kind: Padding.Kind = .constant(0),
                                       convolutionPadding: WindowPadding = .explicit(Edges(top: 1, bottom: 1, left: 1, right: 1)),
                                       isDeconvolution: Bool = false) -> Model {
        let pad = Padding(kind: kind, edges: Edges(top: 1, bottom: 2, left: 3, right: 0))
        let conv = Convolution(outputChannels: 2, kernelChannels: 2, kernel: Size2(square: 3), padding: convolutionPadding,
                               isDeconvolution: isDeconvolution, weights: Weights([Float](repeating: 1, count: 36)))
        return Model(inputs: [Input(name: "data", kind: .array(shape: [2, 3, 3]))], outputs: [Output(name: "conv")],
                     nodes: [Node("pad", .padding(pad), input: "data"), Node("conv", .convolution(conv), input: "pad")])
    }

    func testZeroPaddingFoldsIntoTheConvolutionsOwn() throws {
        var model = Self.paddingThenConvolution()
        XCTAssertTrue(foldPaddingIntoConvolution(&model))
        XCTAssertEqual(model.nodes.map(\.name), ["conv"])
        XCTAssertEqual(model.nodes[0].inputs, ["data"], "the convolution reads what the padding read")
        guard case .convolution(let conv) = model.nodes[0].operation else { return XCTFail("not a convolution") }
        XCTAssertEqual(conv.padding, .explicit(Edges(top: 2, bottom: 3, left: 4, right: 1)))
        XCTAssertFalse(foldPaddingIntoConvolution(&model), "nothing left to fold")
    }

    func testOtherPaddingsAndConvolutionsStay() {
        let cases: [(Model, String)] = [
            (Self.paddingThenConvolution(.constant(1)), "a padding of ones"),
            (Self.paddingThenConvolution(.reflection), "a reflection"),
            (Self.paddingThenConvolution(convolutionPadding: .same(topLeftHeavy: false)), "a same-padded convolution"),
            (Self.paddingThenConvolution(isDeconvolution: true), "a deconvolution"),
        ]
        for (before, what) in cases {
            var model = before
            XCTAssertFalse(foldPaddingIntoConvolution(&model), what)
            XCTAssertEqual(model.nodes.map(\.name), ["pad", "conv"], what)
        }
        var twoReaders = Self.paddingThenConvolution()
        twoReaders.outputs.append(Output(name: "pad"))
        XCTAssertFalse(foldPaddingIntoConvolution(&twoReaders), "the padded map is also a model output")
    }

    func testAConvolutionWithTwoReadersIsNotFolded() {
        let norm = BatchNorm(channels: 2, epsilon: 1, gamma: Weights([1, 1]), beta: Weights([0, 0]),
                             mean: Weights([0, 0]), variance: Weights([0, 0]))
        var model = Self.convolutionThen(.batchNorm(norm))
        model.outputs.append(Output(name: "conv"))
        XCTAssertFalse(foldBatchNormIntoConvolution(&model), "conv's output is also a model output")
        XCTAssertEqual(model.nodes.count, 2)
    }
}
