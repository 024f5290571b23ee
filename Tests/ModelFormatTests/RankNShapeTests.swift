import ModelFormat
import XCTest

/// Shapes of the rank-N operations, as numpy computes them (matmul,
/// transpose, broadcasting), and the refusals: wrong ranks, inner sizes,
/// axes and permutations, hostile sizes.
extension ShapeInferenceTests {
    func testRankNOperations() {
        let t = { (dims: [Int]) in TensorShape(dims) }
        let weights = Weights([Float](repeating: 0.5, count: 6))
        check([
            Case("matmul", .defined(MatMul()), [t([4, 5]), t([5, 6])], [t([4, 6])]),
            Case("matmul batch broadcast", .defined(MatMul()), [t([2, 1, 4, 5]), t([3, 5, 6])], [t([2, 3, 4, 6])]),
            Case("matmul transposes", .defined(MatMul(transposeA: true, transposeB: true)), [t([5, 4]), t([6, 5])], [t([4, 6])]),
            Case("matmul inner sizes", .defined(MatMul()), [t([4, 5]), t([4, 5])], error: "inner sizes 5 and 4 differ"),
            Case("matmul batches", .defined(MatMul()), [t([2, 4, 5]), t([3, 5, 6])], error: "cannot broadcast"),
            Case("matmul of a vector", .defined(MatMul()), [t([5]), t([5, 6])], error: "rank 2 or more"),
            Case("matmul weights", .defined(MatMul(inputChannels: 3, outputChannels: 2, weights: weights)), [t([1, 7, 3])], [t([1, 7, 2])]),
            Case("matmul weights on a vector", .defined(MatMul(inputChannels: 3, outputChannels: 2, weights: weights)), [t([3])], [t([2])]),
            Case("matmul weights last axis", .defined(MatMul(inputChannels: 3, outputChannels: 2, weights: weights)), [t([3, 4])],
                 error: "gets 3x4 with 4 on the last axis"),
            Case("softmax last axis", .defined(Softmax(axis: -1)), [t([2, 3, 4])], [t([2, 3, 4])]),
            Case("softmax first axis", .defined(Softmax(axis: 0)), [t([2, 3, 4])], [t([2, 3, 4])]),
            Case("softmax axis outside", .defined(Softmax(axis: 3)), [t([2, 3, 4])], error: "axis 3 is outside"),
            Case("softmax axis below", .defined(Softmax(axis: -4)), [t([2, 3, 4])], error: "axis -4 is outside"),
            Case("softmax axis Int.min", .defined(Softmax(axis: .min)), [t([2, 3, 4])], error: "is outside"),
            Case("log-softmax middle axis", .defined(LogSoftmax(axis: 1)), [t([2, 3, 4])], [t([2, 3, 4])]),
            Case("log-softmax axis outside", .defined(LogSoftmax(axis: -4)), [t([2, 3, 4])], error: "axis -4 is outside"),
            Case("log-softmax axis Int.max", .defined(LogSoftmax(axis: .max)), [t([2, 3, 4])], error: "is outside"),
            Case("layer norm last two axes", .defined(LayerNorm(normalizedShape: [3, 4], epsilon: 1e-5)), [t([2, 3, 4])], [t([2, 3, 4])]),
            Case("layer norm whole tensor", .defined(LayerNorm(normalizedShape: [2, 3, 4], epsilon: 0)), [t([2, 3, 4])], [t([2, 3, 4])]),
            Case("layer norm not the last axes", .defined(LayerNorm(normalizedShape: [2, 3], epsilon: 1e-5)), [t([2, 3, 4])],
                 error: "normalized shape [2, 3] is not the last axes of the input"),
            Case("layer norm longer than the input", .defined(LayerNorm(normalizedShape: [1, 2, 3, 4], epsilon: 1e-5)), [t([2, 3, 4])],
                 error: "is not the last axes"),
            Case("transpose", .defined(Transpose(axes: [2, 0, 1])), [t([2, 3, 4])], [t([4, 2, 3])]),
            Case("transpose rank", .defined(Transpose(axes: [1, 0])), [t([2, 3, 4])], error: "permutes 2 axes"),
            Case("transpose repeated axis", .defined(Transpose(axes: [0, 0, 1])), [t([2, 3, 4])], error: "not a permutation"),
            Case("transpose huge axis", .defined(Transpose(axes: [0, Int.max, 1])), [t([2, 3, 4])], error: "not a permutation"),
            Case("gelu keeps the shape", .defined(GELU()), [t([7])], [t([7])]),
            Case("add broadcasts numpy's way", .add(constant: 0), [t([2, 1, 4]), t([3, 1])], [t([2, 3, 4])]),
            Case("add refuses", .add(constant: 0), [t([2, 3]), t([4])], error: "cannot combine shapes 2x3 and 4"),
            Case("relu on a vector tensor", .activation(.relu), [t([5])], [t([5])]),
            // A rank-N model's image: [1, C, H, W], which Core ML's convolution takes as [batch, C, H, W].
            Case("convolution on a batch of one", convolution(out: 2, kernelChannels: 3, kernel: Size2(square: 1)), [t([1, 3, 4, 4])],
                 [t([1, 2, 4, 4])]),
            Case("convolution on a batch of two", convolution(out: 2, kernelChannels: 3, kernel: Size2(square: 1)), [t([2, 3, 4, 4])],
                 error: "takes [C, H, W] tensors, gets 2x3x4x4"),
            // Every map layer whose Core ML layer takes rank 4 does the same (takesBatchedMaps).
            Case("pooling on a batch of one", .pooling(Pooling(kind: .max, kernel: Size2(square: 2), stride: Size2(square: 2))), [t([1, 3, 4, 4])],
                 [t([1, 3, 2, 2])]),
            Case("global pooling on a batch of one", .pooling(Pooling(kind: .average, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)),
                 [t([1, 3, 4, 5])], [t([1, 3, 1, 1])]),
            Case("concat of batches of one", .concat, [t([1, 3, 4, 4]), t([1, 2, 4, 4])], [t([1, 5, 4, 4])]),
            Case("concat of a map and a batch of one", .concat, [t([3, 4, 4]), t([1, 2, 4, 4])], error: "cannot join 3x4x4, 1x2x4x4 along axis -3"),
            Case("flatten of a batch of one", .flatten(.channelFirst), [t([1, 3, 2, 2])], [t([1, 12, 1, 1])]),
            Case("pooling on a batch of two", .pooling(Pooling(kind: .max, kernel: Size2(square: 2), stride: Size2(square: 2))), [t([2, 3, 4, 4])],
                 error: "takes [C, H, W] tensors, gets 2x3x4x4"),
            // Core ML's classic reshape (channel last) takes rank 5 only on the rank-N path; channel first is reshapeStatic's.
            Case("reshape on a batch of one", .reshape(targetShape: [12, 1, 1], order: .channelLast), [t([1, 3, 2, 2])],
                 error: "takes [C, H, W] tensors, gets 1x3x2x2"),
            Case("reshape of a batch of one, channel first", .reshape(targetShape: [12, 1, 1]), [t([1, 3, 2, 2])], [t([12, 1, 1])]),
            Case("softmax over channels on rank 2", .softmax, [t([3, 4])], error: "axis -3 is outside the input 3x4"),
            Case("two inputs to a one-input op", .defined(GELU()), [t([2]), t([2])], error: "has 2 inputs, the operation takes 1"),
            Case("one input to a product", .defined(MatMul()), [t([2, 2])], error: "has 1 inputs, the operation takes 2"),
        ])
    }

    func testRankNLayoutOperations() {
        let t = { (dims: [Int]) in TensorShape(dims) }
        check([
            Case("concat axis 1", .defined(Concat(axis: 1)), [t([2, 3, 4]), t([2, 5, 4])], [t([2, 8, 4])]),
            Case("concat last axis", .defined(Concat(axis: -1)), [t([2, 3]), t([2, 1]), t([2, 2])], [t([2, 6])]),
            Case("concat sizes differ", .defined(Concat(axis: 0)), [t([2, 3]), t([2, 4])], error: "cannot join 2x3, 2x4 along axis 0"),
            Case("concat ranks differ", .defined(Concat(axis: 0)), [t([2, 3]), t([2, 3, 1])], error: "cannot join"),
            Case("concat axis outside", .defined(Concat(axis: 2)), [t([2, 3]), t([2, 3])], error: "axis 2 is outside"),
            Case("concat of one", .defined(Concat(axis: 0)), [t([2, 3])], error: "has 1 inputs, the operation takes at least 2"),
            Case("slice", .slice(Slice(begin: [0, 1, 1], end: [2, 7, 4], strides: [1, 2, 1])), [t([2, 8, 4])], [t([2, 3, 3])]),
            Case("slice past the end", .slice(Slice(begin: [0, 0], end: [2, 5])), [t([2, 4])], error: "slice end 5 is past the axis' 4 elements"),
            Case("slice backwards", .slice(Slice(begin: [1], end: [0])), [t([2])], [t([0])]),
            Case("slice empty", .slice(Slice(begin: [1], end: [1])), [t([2])], [t([0])]),
            Case("slice from the end", .slice(Slice(begin: [-3], end: [-1])), [t([4])], [t([2])]),
            Case("slice negative start, positive end", .slice(Slice(begin: [-1], end: [2])), [t([2])],
                 error: "slice -1..<2 mixes a negative start with a positive end"),
            Case("slice stride 0", .slice(Slice(begin: [0], end: [2], strides: [0])), [t([2])], error: "slice stride 0 is out of range"),
            Case("slice of the first axis", .slice(Slice(axes: [0], begin: [0], end: [1])), [t([2, 3])], [t([1, 3])]),
            Case("slice axes", .slice(Slice(begin: [0], end: [2])), [t([2, 2])], error: "slices 1 axes, the input 2x2 has 2"),
            Case("slice of the last axis", .slice(Slice(axes: [-1], begin: [1], end: [5], strides: [2])), [t([2, 6])], [t([2, 2])]),
            Case("slice axis outside", .slice(Slice(axes: [2], begin: [0], end: [1])), [t([2, 2])], error: "slice axes [2] are not distinct axes of the input 2x2"),
            Case("slice axis twice", .slice(Slice(axes: [0, -2], begin: [0, 0], end: [1, 1])), [t([2, 2])], error: "are not distinct axes"),
            Case("slice counts", .slice(Slice(begin: [0, 0], end: [2], strides: [1])), [t([2, 2])], error: "one entry per axis"),
            Case("reshape", .reshape(targetShape: [3, 6]), [t([2, 3, 3])], [t([3, 6])]),
            Case("reshape count", .reshape(targetShape: [3, 5]), [t([2, 3, 3])], error: "cannot reshape 2x3x3 (18 values) to [3, 5]"),
            Case("reshape -1", .reshape(targetShape: [-1, 6]), [t([2, 3, 3])], error: "reshape size -1 is out of range"),
            Case("reduce keeping", .reduce(Reduce(mode: .sum, axes: [1])), [t([2, 3, 4])], [t([2, 1, 4])]),
            Case("reduce dropping", .reduce(Reduce(mode: .average, axes: [0, -1], keepDimensions: false)), [t([2, 3, 4])], [t([3])]),
            Case("reduce everything", .reduce(Reduce(mode: .max, axes: [0, 1], keepDimensions: false)), [t([2, 3])], [t([1])]),
            Case("reduce repeated axis", .reduce(Reduce(mode: .sum, axes: [1, -1])), [t([2, 3])], error: "are not distinct axes"),
            Case("reduce no axis", .reduce(Reduce(mode: .sum, axes: [])), [t([2, 3])], error: "are not distinct axes"),
            Case("reduce axis outside", .reduce(Reduce(mode: .sum, axes: [Int.min])), [t([2, 3])], error: "are not distinct axes"),
        ])
    }

    func testRankNOutputsTooLargeAreRefused() {
        let node = Node(name: "big", operation: .defined(MatMul()), inputs: ["a", "b"], outputs: ["big"])
        XCTAssertThrowsError(try ShapeInference.checkedOutputShapes(of: node, inputs: [TensorShape([1 << 20, 1]), TensorShape([1, 1 << 20])])) {
            XCTAssertTrue("\($0)".contains("would have the shape 1048576x1048576, too large"), "\($0)")
        }
        check([
            Case("matmul weights out of range", .defined(MatMul(inputChannels: 1 << 31, outputChannels: 1, weights: Weights([1]))),
                 [TensorShape([1 << 20])], error: "channel count 2147483648 is out of range"),
        ])
    }

    func testTensorInputs() throws {
        func model(_ shape: [Int]) -> Model {
            Model(inputs: [Input(name: "x", kind: .tensor(shape: shape))], outputs: [Output(name: "y")],
                  nodes: [Node("y", .defined(GELU()), input: "x")])
        }
        XCTAssertEqual(try model([1, 16, 64]).validate()["y"], TensorShape([1, 16, 64]))
        for shape in [[], [0, 3], [-1], [1 << 31], [1 << 16, 1 << 16]] {
            XCTAssertThrowsError(try model(shape).validate(), "\(shape)") { error in
                XCTAssertTrue("\(error)".contains("input 'x': shape"), "\(error)")
            }
        }
    }

    func testWeightCountsOfDefinedOperations() {
        let model = Model(inputs: [Input(name: "x", kind: .tensor(shape: [4, 3]))], outputs: [Output(name: "y")],
                          nodes: [Node("y", .defined(MatMul(inputChannels: 3, outputChannels: 2, weights: Weights([1, 2, 3]),
                                                            bias: Weights([1, 2]))), input: "x")])
        XCTAssertThrowsError(try model.validate()) { error in
            XCTAssertEqual("\(error)", "layer 'y': weights has 3 values, expected 6")
        }
    }
}
