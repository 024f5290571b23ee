import ModelFormat
import XCTest

/// Shape inference and validation over every operation with extreme
/// attribute values (0, negatives, 2^31, 2^63 - 1, Int.min, NaN, infinities)
/// and extreme input shapes: each must give shapes or a ModelError, never
/// trap (an overflow, a division by zero, a Double -> Int conversion).
/// Numbers from a file reach these attributes through every frontend and
/// the Core ML reader; scripts/fuzz's fuzz-shapes target does the same
/// with arbitrary values.
final class ExtremeAttributeTests: XCTestCase {
    static let integers = [0, 1, -1, 2, 3, -(1 << 31), 1 << 30, (1 << 30) + 1, 1 << 31, 1 << 32, 1 << 62, Int.max, Int.min]
    static let floats: [Float] = [0, -1, .leastNonzeroMagnitude, 1e30, -1e30, .nan, .infinity, -.infinity, .greatestFiniteMagnitude]

    /// Every operation, built from a few integers and one float, so each
    /// position can take each extreme value in turn.
    static let builders: [(name: String, positions: Int, make: @Sendable ([Int], Float) -> Op)] = [
        ("convolution", 11, { v, _ in
            .convolution(Convolution(outputChannels: v[0], kernelChannels: v[1], groups: v[2], kernel: Size2(v[3], v[4]),
                                     stride: Size2(v[5], v[6]), dilation: Size2(v[7], v[8]),
                                     padding: .explicit(Edges(top: v[9], bottom: v[10])), weights: Weights(unloadedCount: 4)))
        }),
        ("deconvolution", 9, { v, _ in
            .convolution(Convolution(outputChannels: v[0], kernelChannels: v[1], groups: v[2], kernel: Size2(v[3], v[4]),
                                     stride: Size2(v[5], v[6]), padding: .same(topLeftHeavy: false), isDeconvolution: true,
                                     outputShape: [v[7], v[8]], weights: Weights(unloadedCount: 4)))
        }),
        ("pooling same", 4, { v, _ in .pooling(Pooling(kind: .max, kernel: Size2(v[0], v[1]), stride: Size2(v[2], v[3]), padding: .same(topLeftHeavy: true))) }),
        ("pooling last pixel", 6, { v, _ in
            .pooling(Pooling(kind: .average, kernel: Size2(v[0], v[1]), stride: Size2(v[2], v[3]), padding: .includeLastPixel(Size2(v[4], v[5]))))
        }),
        ("inner product", 2, { v, _ in .innerProduct(InnerProduct(inputChannels: v[0], outputChannels: v[1], weights: Weights(unloadedCount: 4))) }),
        ("batch norm", 1, { v, f in
            .batchNorm(BatchNorm(channels: v[0], epsilon: f, gamma: Weights([1]), beta: Weights([0]), mean: Weights([0]), variance: Weights([1])))
        }),
        ("lrn", 1, { v, f in .lrn(LRN(alpha: f, beta: f, localSize: v[0], k: f)) }),
        ("clip", 0, { _, f in .activation(.clip(min: f, max: -f)) }),
        ("prelu", 0, { _, f in .activation(.prelu(alpha: Weights([f, f]))) }),
        ("scale", 3, { v, f in .scale(Scale(shape: [v[0], v[1], v[2]], scale: Weights([f]), biasShape: [v[0]], bias: Weights([f]))) }),
        ("bias", 1, { v, f in .bias(Bias(shape: [v[0]], bias: Weights([f]))) }),
        ("reshape", 3, { v, _ in .reshape(targetShape: [v[0], v[1], v[2]], order: .channelFirst) }),
        ("permute", 4, { v, _ in .permute(axes: [v[0], v[1], v[2], v[3]]) }),
        ("padding", 4, { v, f in .padding(Padding(kind: .constant(f), edges: Edges(top: v[0], bottom: v[1], left: v[2], right: v[3]))) }),
        ("crop edges", 4, { v, _ in .crop(.edges(Edges(top: v[0], bottom: v[1], left: v[2], right: v[3]))) }),
        ("crop like", 2, { v, _ in .crop(.like(offset: [v[0], v[1]])) }),
        ("slice", 3, { v, _ in .slice(Slice(axis: .height, start: v[0], end: v[1], stride: v[2])) }),
        ("slice of listed axes", 4, { v, _ in .slice(Slice(axes: [v[0]], begin: [v[1]], end: [v[2]], strides: [v[3]])) }),
        ("upsample", 2, { v, _ in .upsample(Upsample(scale: Size2(v[0], v[1]))) }),
        ("constant", 3, { v, f in .constant(shape: [v[0], v[1], v[2]], data: Weights([f])) }),
        ("unary", 0, { _, f in .unary(Unary(kind: .power, alpha: f, epsilon: f, shift: f, scale: f)) }),
        ("add", 0, { _, f in .add(constant: f) }),
        ("concat", 0, { _, _ in .concat }),
        ("maximum", 0, { _, _ in .maximum }),
        ("split", 0, { _, _ in .split }),
        ("flatten", 0, { _, _ in .flatten(.channelLast) }),
        ("reduce", 0, { _, f in .reduce(Reduce(mode: .logSum, axes: [-2, -1], epsilon: f)) }),
        ("log softmax", 1, { v, _ in .defined(LogSoftmax(axis: v[0])) }),
        ("layer norm", 2, { v, f in .defined(LayerNorm(normalizedShape: [v[0], v[1]], epsilon: f, gamma: Weights([f]), beta: Weights([f]))) }),
    ]

    static let inputShapes: [[TensorShape]] = [
        [TensorShape(channels: 3, height: 8, width: 8)],
        [TensorShape(channels: 1 << 30, height: 1 << 30, width: 1 << 30)],
        [TensorShape(channels: Int.max, height: Int.max, width: Int.max)],
        [TensorShape(channels: 0, height: -1, width: Int.min)],
        [TensorShape(channels: 3, height: 8, width: 8), TensorShape(channels: 1 << 31, height: 1 << 31, width: 1)],
        [TensorShape(channels: 1 << 30, height: 4, width: 4), TensorShape(channels: 1 << 30, height: 4, width: 4),
         TensorShape(channels: 1 << 30, height: 4, width: 4)],
        [],
    ]

    func testEveryOperationWithExtremeValuesGivesShapesOrAnError() {
        var evaluated = 0, refused = 0
        for builder in Self.builders {
            for float in Self.floats {
                // Each position takes each extreme value, the others a small size.
                var variants = [Array(repeating: 2, count: builder.positions)]
                for position in 0..<builder.positions {
                    for value in Self.integers {
                        var values = Array(repeating: 2, count: builder.positions)
                        values[position] = value
                        variants.append(values)
                    }
                }
                for values in variants {
                    let operation = builder.make(values, float)
                    for inputs in Self.inputShapes {
                        let node = Node(name: builder.name, operation: operation, inputs: inputs.indices.map { "x\($0)" },
                                        outputs: ["a", "b"].prefix(builder.name == "split" ? 2 : 1).map { $0 })
                        do {
                            _ = try ShapeInference.checkedOutputShapes(of: node, inputs: inputs)
                        } catch {
                            XCTAssertTrue(error.message.hasPrefix("layer '\(builder.name)': "), "\(error)")
                            refused += 1
                        }
                        evaluated += 1
                    }
                    // The whole model: weight counts, attributes, shapes, outputs.
                    let model = Model(inputs: [Input(name: "x0", kind: .array(shape: [3, 8, 8]))], outputs: [Output(name: "a")],
                                      nodes: [Node(name: builder.name, operation: operation, inputs: ["x0"], outputs: ["a"])])
                    _ = try? model.validate()
                }
            }
        }
        XCTAssertGreaterThan(evaluated, 30_000)
        XCTAssertGreaterThan(refused, evaluated / 2, "most of these values are refused")
    }

    /// Inputs with extreme shapes, and images with extreme sizes and
    /// preprocessing, never trap validation.
    func testExtremeInputsAreRefusedCleanly() {
        for value in Self.integers {
            for shape in [[value], [value, 4, 4], [4, value, value], [value, value, value], [1, 2], []] {
                let model = Model(inputs: [Input(name: "x", kind: .array(shape: shape))], outputs: [Output(name: "r")],
                                  nodes: [Node("r", .activation(.relu), input: "x")])
                _ = try? model.validate()
            }
            for float in Self.floats {
                let image = ImageInput(width: value, height: value, scale: float, redBias: float, meanImage: Weights([float]))
                let model = Model(inputs: [Input(name: "x", kind: .image(image))], outputs: [Output(name: "r")],
                                  nodes: [Node("r", .activation(.relu), input: "x")])
                XCTAssertThrowsError(try model.validate())
            }
        }
    }
}
