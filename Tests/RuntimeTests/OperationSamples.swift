import ModelFormat
import TestSupport

/// Small models that together use every operation of `allOperations`
/// (and the variants the writer codes differently: deconvolution, a
/// layer norm over a map's channels, a tensor's constant), for
/// `AllOperationsTests`. A new operation adds its sample here.
enum OperationSamples {
    static func all() -> [Model] {
        var seed: UInt64 = 100
        func w(_ count: Int) -> Weights {
            seed += 1
            var random = SplitMix64(seed: seed)
            return Weights((0..<count).map { _ in random.nextFloat(in: 0.5...1.5) })
        }
        /// One node y reading a [4, 8, 8] map x.
        func onMap(_ operation: Op, shape: [Int] = [4, 8, 8]) -> Model {
            Model(inputs: [Input(name: "x", kind: .array(shape: shape))], outputs: [Output(name: "y")],
                  nodes: [Node("y", operation, input: "x")])
        }
        /// One node y reading a [2, 3, 4] tensor x (or `inputs` copies of it).
        func onTensor(_ operation: any OpDefinition, shape: [Int] = [2, 3, 4], inputs: Int = 1) -> Model {
            Model(inputs: [Input(name: "x", kind: .tensor(shape: shape))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "y", operation: .defined(operation), inputs: Array(repeating: "x", count: inputs), outputs: ["y"])])
        }
        let convolution = Convolution(outputChannels: 2, kernelChannels: 4, kernel: Size2(square: 3),
                                      padding: .same(topLeftHeavy: false), weights: w(2 * 4 * 9), bias: w(2))
        let deconvolution = Convolution(outputChannels: 2, kernelChannels: 4, kernel: Size2(square: 2), stride: Size2(square: 2),
                                        isDeconvolution: true, outputShape: [16, 16], weights: w(2 * 4 * 4), bias: w(2))
        return [
            onMap(.convolution(convolution)),
            onMap(.convolution(deconvolution)),
            onMap(.pooling(Pooling(kind: .max, kernel: Size2(square: 2), stride: Size2(square: 2)))),
            onMap(.innerProduct(InnerProduct(inputChannels: 4, outputChannels: 3, weights: w(12), bias: w(3))), shape: [4, 1, 1]),
            onMap(.activation(.leakyRelu(alpha: 0.1))),
            onMap(.activation(.prelu(alpha: w(4)))),
            onMap(.batchNorm(BatchNorm(channels: 4, epsilon: 1e-3, gamma: w(4), beta: w(4), mean: w(4), variance: w(4)))),
            onMap(.scale(Scale(shape: [4], scale: w(4), biasShape: [4], bias: w(4)))),
            onMap(.bias(Bias(shape: [4, 8, 8], bias: w(256)))),
            onMap(.lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 3, k: 2))),
            onMap(.softmax),
            Model(inputs: [Input(name: "x", kind: .array(shape: [4, 8, 8]))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "y", operation: .concat, inputs: ["x", "x"], outputs: ["y"])]),
            Model(inputs: [Input(name: "x", kind: .array(shape: [4, 8, 8]))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "y", operation: .multiply(constant: 0), inputs: ["x", "x"], outputs: ["y"])]),
            onMap(.add(constant: 2.5)),
            onMap(.unary(Unary(kind: .power, alpha: 2, shift: 1, scale: 0.5))),
            onMap(.l2Normalize(epsilon: 1e-6)),
            onMap(.flatten(.channelLast)),
            onMap(.reshape(targetShape: [16, 4, 4], order: .channelFirst)),
            onMap(.permute(axes: [0, 2, 3, 1])),
            onMap(.padding(Padding(kind: .reflection, edges: Edges(top: 1, bottom: 2, left: 1, right: 0)))),
            onMap(.crop(.edges(Edges(top: 1, bottom: 1, left: 2, right: 2)))),
            onMap(.slice(Slice(axis: .width, start: 1, end: -1, stride: 2))),
            Model(inputs: [Input(name: "x", kind: .array(shape: [4, 8, 8]))], outputs: [Output(name: "a"), Output(name: "b")],
                  nodes: [Node(name: "split", operation: .split, inputs: ["x"], outputs: ["a", "b"])]),
            onMap(.reduce(Reduce(mode: .average, axes: [-2, -1]))),
            onMap(.upsample(Upsample(scale: Size2(2, 3), mode: .bilinear))),
            onMap(.upsample(Upsample(scale: Size2(1, 1), mode: .bilinear, alignment: .halfPixel, fractionalScale: [1.5, 2.25]))),
            Model(inputs: [Input(name: "x", kind: .array(shape: [4, 8, 8]))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "c", operation: .constant(shape: [4, 8, 8], data: w(256)), inputs: [], outputs: ["c"]),
                          Node(name: "y", operation: .add(constant: 0), inputs: ["x", "c"], outputs: ["y"])]),
            Model(inputs: [Input(name: "x", kind: .tensor(shape: [2, 3]))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "c", operation: .defined(Constant(shape: [2, 3], data: w(6))), inputs: [], outputs: ["c"]),
                          Node(name: "y", operation: .add(constant: 0), inputs: ["x", "c"], outputs: ["y"])]),
            onTensor(MatMul(inputChannels: 4, outputChannels: 5, weights: w(20), bias: w(5))),
            onTensor(MatMul(transposeB: true), inputs: 2),
            onTensor(Softmax(axis: 1)),
            onTensor(Transpose(axes: [2, 0, 1])),
            onTensor(GELU(mode: .tanhApproximation)),
            onTensor(Reshape(targetShape: [6, 4])),
            onTensor(Concat(axis: -1), inputs: 2),
            onTensor(Slice(begin: [0, 1, 0], end: [2, 3, 4], strides: [1, 1, 2])),
            onTensor(Reduce(mode: .max, axes: [1], keepDimensions: false)),
            onTensor(LogSoftmax(axis: -1)),
            onTensor(CumSum(axis: 1, exclusive: true, reverse: true)),
            onTensor(LayerNorm(normalizedShape: [4], epsilon: 1e-5, gamma: w(4), beta: w(4))),
            onMap(.defined(LayerNorm(normalizedShape: [4], epsilon: 1e-5, gamma: w(4), beta: w(4), axis: -3))),
            onTensor(Comparison(.greaterOrEqual, alpha: 0.75)),
            Model(inputs: [Input(name: "x", kind: .tensor(shape: [2, 3, 4]))], outputs: [Output(name: "y")],
                  nodes: [Node(name: "c", operation: .defined(Constant(shape: [4], data: w(4))), inputs: [], outputs: ["c"]),
                          Node(name: "y", operation: .defined(Where()), inputs: ["x", "c", "x"], outputs: ["y"])]),
        ] + Comparison.Kind.allCases.map { kind in onTensor(Comparison(kind), inputs: kind == .not ? 1 : 2) }
    }
}
