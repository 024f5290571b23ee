import ModelFormat

/// A network that uses every operation, activation, padding mode and
/// attribute variant the Core ML writer knows, for round-trip tests.
/// Input x is [4, 8, 8].
enum EveryLayerModel {
    static func make(includeClip: Bool = true) -> Model {
        var seed: UInt64 = 0
        func w(_ count: Int) -> Weights {
            seed += 1
            return randomWeights(count, seed: seed)
        }
        func node(_ name: String, _ operation: Op, _ inputs: [String] = ["conv1"]) -> Node {
            Node(name: name, operation: operation, inputs: inputs, outputs: [name])
        }
        var nodes: [Node] = [
            node("conv1", .convolution(Convolution(
                outputChannels: 4, kernelChannels: 2, groups: 2, kernel: Size2(3, 3), dilation: Size2(2, 2),
                padding: .same(topLeftHeavy: false), weights: w(4 * 2 * 9), bias: w(4))), ["x"]),
            node("conv_explicit", .convolution(Convolution(
                outputChannels: 3, kernelChannels: 4, kernel: Size2(3, 2), stride: Size2(2, 1),
                padding: .explicit(Edges(top: 1, bottom: 0, left: 2, right: 1)), weights: w(3 * 4 * 6))), ["x"]),
            node("conv_same_tl", .convolution(Convolution(
                outputChannels: 2, kernelChannels: 4, kernel: Size2(square: 2), stride: Size2(square: 2),
                padding: .same(topLeftHeavy: true), weights: w(2 * 4 * 4), bias: w(2))), ["x"]),
            node("deconv", .convolution(Convolution(
                outputChannels: 4, kernelChannels: 4, kernel: Size2(square: 2), stride: Size2(square: 2),
                isDeconvolution: true, outputShape: [16, 16], weights: w(64), bias: w(4)))),
            node("pool_max", .pooling(Pooling(kind: .max, kernel: Size2(square: 2), stride: Size2(square: 2))), ["deconv"]),
            node("pool_avg", .pooling(Pooling(kind: .average, kernel: Size2(square: 3), stride: Size2(square: 2),
                                              padding: .includeLastPixel(Size2(1, 1)), excludePaddingFromAverage: true))),
            node("pool_l2_same", .pooling(Pooling(kind: .l2, kernel: Size2(square: 3), stride: Size2(square: 2),
                                                  padding: .same(topLeftHeavy: true)))),
            node("pool_global", .pooling(Pooling(kind: .average, kernel: Size2(square: 1), stride: Size2(square: 1),
                                                 global: true)), ["x"]),
            node("ip", .innerProduct(InnerProduct(inputChannels: 4, outputChannels: 6, weights: w(24), bias: w(6))),
                 ["pool_global"]),
            node("ip_nobias", .innerProduct(InnerProduct(inputChannels: 4, outputChannels: 2, weights: w(8))), ["pool_global"]),
            node("softmax", .softmax, ["ip"]),
            node("bn", .batchNorm(BatchNorm(channels: 4, epsilon: 1e-3, gamma: w(4), beta: w(4), mean: w(4),
                                            variance: Weights([1, 2, 3, 4])))),
            node("bn_instance", .batchNorm(BatchNorm(channels: 4, epsilon: 1e-5, gamma: w(4), beta: w(4), mean: w(4),
                                                     variance: w(4), computeMeanVar: true, instanceNormalization: true))),
            node("scale", .scale(Scale(shape: [4], scale: w(4), biasShape: [4], bias: w(4)))),
            node("scale_nobias", .scale(Scale(shape: [1], scale: w(1)))),
            node("bias", .bias(Bias(shape: [4, 8, 8], bias: w(256)))),
            node("lrn", .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 5, k: 2))),
            node("concat", .concat, ["conv1", "pool_max"]),
            node("add2", .add(constant: 0), ["conv1", "bn"]),
            node("add_constant", .add(constant: 2.5)),
            node("multiply2", .multiply(constant: 0), ["conv1", "bias"]),
            node("multiply_constant", .multiply(constant: -1)),
            node("maximum", .maximum, ["conv1", "bn", "scale"]),
            node("minimum", .minimum, ["conv1", "bn"]),
            node("average", .average, ["conv1", "bn"]),
            node("l2", .l2Normalize(epsilon: 1e-6)),
            node("flatten_first", .flatten(.channelFirst)),
            node("flatten_last", .flatten(.channelLast)),
            node("reshape", .reshape(targetShape: [16, 4, 4], order: .channelLast)),
            node("permute", .permute(axes: [0, 2, 3, 1])),
            node("pad_constant", .padding(Padding(kind: .constant(1.5), edges: Edges(top: 1, bottom: 2, left: 3, right: 4)))),
            node("pad_reflect", .padding(Padding(kind: .reflection, edges: Edges(all: 1)))),
            node("pad_replicate", .padding(Padding(kind: .replication, edges: Edges(top: 0, bottom: 1, left: 1, right: 0)))),
            node("crop_edges", .crop(.edges(Edges(top: 1, bottom: 1, left: 2, right: 2)))),
            node("crop_like", .crop(.like(offset: [1, 2])), ["conv1", "pool_avg"]),
            node("slice_c", .slice(Slice(axis: .channel, start: 1, end: 3))),
            node("slice_h", .slice(Slice(axis: .height, start: 0, end: -1, stride: 2))),
            node("slice_w", .slice(Slice(axis: .width, start: -5, end: -1, stride: 3))),
            Node(name: "split", operation: .split, inputs: ["conv1"], outputs: ["split_a", "split_b"]),
            node("reduce_sum", .reduce(Reduce(mode: .sum, axes: [-3, -2, -1]))),
            node("reduce_avg", .reduce(Reduce(mode: .average, axes: [-2, -1]))),
            node("reduce_argmax", .reduce(Reduce(mode: .argmax, axes: [-3]))),
            node("reduce_max", .reduce(Reduce(mode: .max, axes: [-2], epsilon: 1e-3))),
            node("reduce_logsum", .reduce(Reduce(mode: .logSum, axes: [-1]))),
            node("upsample_nn", .upsample(Upsample(scale: Size2(2, 3)))),
            node("upsample_bilinear", .upsample(Upsample(scale: Size2(2, 2), mode: .bilinear))),
            Node(name: "constant", operation: .constant(shape: [4, 8, 8], data: w(256)), inputs: [], outputs: ["constant"]),
            node("plus_constant", .add(constant: 0), ["conv1", "constant"]),
        ]
        let activations: [(String, Activation)] = [
            ("relu", .relu), ("leaky", .leakyRelu(alpha: 0.1)), ("thresholded", .thresholdedRelu(alpha: 0.2)),
            ("prelu", .prelu(alpha: w(4))), ("tanh", .tanh), ("scaled_tanh", .scaledTanh(alpha: 1.7, beta: 0.66)),
            ("sigmoid", .sigmoid), ("hard_sigmoid", .sigmoidHard(alpha: 0.2, beta: 0.5)), ("elu", .elu(alpha: 1)),
            ("softsign", .softsign), ("softplus", .softplus), ("psoftplus", .parametricSoftplus(alpha: w(4), beta: w(4))),
            ("linear", .linear(alpha: 2, beta: -1)),
        ] + (includeClip ? [("clip", .clip(min: 0, max: 6))] : [])
        nodes += activations.map { node($0.0, .activation($0.1)) }
        let unaries: [(String, Unary)] = [
            ("sqrt", Unary(kind: .sqrt)), ("rsqrt", Unary(kind: .rsqrt, epsilon: 1e-6)), ("inverse", Unary(kind: .inverse, epsilon: 1e-6)),
            ("power", Unary(kind: .power, alpha: 2, shift: 1, scale: 0.5)), ("exp", Unary(kind: .exp)), ("log", Unary(kind: .log, epsilon: 1e-3)),
            ("abs", Unary(kind: .abs)), ("threshold", Unary(kind: .threshold, alpha: 0.1)),
        ]
        nodes += unaries.map { node($0.0, .unary($0.1)) }
        return Model(
            inputs: [Input(name: "x", kind: .array(shape: [4, 8, 8]), description: "a feature map")],
            outputs: [Output(name: "softmax", shape: [6], description: "probabilities"), Output(name: "concat", shape: [8, 8, 8]),
                      Output(name: "split_b")],
            nodes: nodes,
            metadata: Metadata(author: "tests", license: "BSD", shortDescription: "every layer", version: "2.0",
                               userDefined: [(key: "b", value: "2"), (key: "a", value: "1")]))
    }

    /// The Core ML layer type (the `layer` oneof member) each node becomes.
    static func coreMLType(_ operation: Op) -> String {
        switch operation {
        case .convolution: "convolution"
        case .activation(.clip): "clip"
        case .batchNorm: "batchnorm"
        case .maximum: "max"
        case .minimum: "min"
        case .l2Normalize: "l2normalize"
        // A map model's constant and transpose: the classic layers.
        case .defined(let op) where op.definition.kindName == "constant": "loadConstant"
        case .defined(let op) where op.definition is Transpose: "permute"
        default: operation.kindName
        }
    }
}
