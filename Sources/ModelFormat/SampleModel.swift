/// A small classifier built in code: the model the README's first command
/// writes, and the spine's round-trip test subject.
///
/// Image input `data`, 227x227 BGR, with Caffe-style mean biases and scale;
/// conv 8 7x7/4 -> ReLU -> max pool 3/2 (Caffe rounding) -> flatten ->
/// inner product 8 -> softmax, labelled with age_net's eight age ranges. Weights come from a
/// fixed-seed generator, so every run builds the same model.
public enum SampleModel {
    /// age_net's labels.
    public static let ageLabels = ["0-2", "4-6", "8-13", "15-20", "25-32", "38-43", "48-53", "60"]

    public static func classifier() -> Model {
        var random = SplitMix64(seed: 2024)
        func weights(_ count: Int, scale: Float) -> Weights {
            Weights((0..<count).map { _ in random.nextFloat(in: -scale...scale) })
        }
        let image = ImageInput(width: 227, height: 227, colorSpace: .bgr, scale: 1.0 / 255.0,
                               redBias: -0.48, greenBias: -0.46, blueBias: -0.41)
        let conv = Convolution(outputChannels: 8, kernelChannels: 3, kernel: Size2(square: 7), stride: Size2(square: 4),
                               weights: weights(8 * 3 * 7 * 7, scale: 0.1), bias: weights(8, scale: 0.1))
        let pool = Pooling(kind: .max, kernel: Size2(square: 3), stride: Size2(square: 2),
                           padding: .includeLastPixel(Size2(0, 0)))
        let features = 8 * 28 * 28
        let product = InnerProduct(inputChannels: features, outputChannels: 8,
                                   weights: weights(features * 8, scale: 0.02), bias: weights(8, scale: 0.1))
        return Model(
            inputs: [Input(name: "data", kind: .image(image), description: "A face, 227x227")],
            outputs: [],
            nodes: [
                Node("conv1", .convolution(conv), input: "data"),
                Node("relu1", .activation(.relu), input: "conv1"),
                Node("pool1", .pooling(pool), input: "relu1"),
                Node("flatten", .flatten(.channelFirst), input: "pool1"),
                Node("fc8", .innerProduct(product), input: "flatten"),
                Node(name: "prob", operation: .softmax, inputs: ["fc8"], outputs: ["classLabelProbs"]),
            ],
            classifier: Classifier(labels: .strings(ageLabels)),
            metadata: Metadata(author: "ModelToolkit", license: "MIT",
                               shortDescription: "Sample age classifier with generated weights", version: "1.0",
                               userDefined: [(key: "source", value: "SampleModel.classifier()")]))
    }
}

/// A small, fast, seeded pseudo-random generator (SplitMix64), so generated
/// weights are the same on every machine.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A float spread evenly over `range`.
    public mutating func nextFloat(in range: ClosedRange<Float>) -> Float {
        let unit = Float(next() >> 40) / Float(1 << 24)
        return range.lowerBound + unit * (range.upperBound - range.lowerBound)
    }
}
