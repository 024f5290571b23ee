import ModelFormat
import XCTest

func shape(_ channels: Int, _ height: Int = 1, _ width: Int = 1) -> TensorShape {
    TensorShape(channels: channels, height: height, width: width)
}

/// A convolution whose weights are only counted (shape inference never reads them).
func convolution(out: Int, kernelChannels: Int, groups: Int = 1, kernel: Size2, stride: Size2 = Size2(square: 1),
                 dilation: Size2 = Size2(square: 1), padding: WindowPadding = .explicit(.zero),
                 deconvolution: Bool = false, outputShape: [Int] = []) -> Op {
    var conv = Convolution(outputChannels: out, kernelChannels: kernelChannels, groups: groups, kernel: kernel, stride: stride,
                           dilation: dilation, padding: padding, isDeconvolution: deconvolution, outputShape: outputShape,
                           weights: Weights(unloadedCount: 0))
    conv.weights = Weights(unloadedCount: conv.expectedWeightCount!)
    return .convolution(conv)
}

func pooling(_ kernel: Size2, _ stride: Size2, _ padding: WindowPadding = .explicit(.zero), global: Bool = false) -> Op {
    .pooling(Pooling(kind: .max, kernel: kernel, stride: stride, padding: padding, global: global))
}

/// Output shapes, per operation kind, computed by hand from the formulas in
/// the doc comments.
final class ShapeInferenceTests: XCTestCase {
    struct Case {
        let name: String
        let operation: Op
        let inputs: [TensorShape]
        var outputs = 1
        let expected: [TensorShape]?  // nil: a ModelError naming the layer
        var error = ""

        init(_ name: String, _ operation: Op, _ inputs: [TensorShape], outputs: Int = 1, _ expected: [TensorShape]) {
            self.name = name
            self.operation = operation
            self.inputs = inputs
            self.outputs = outputs
            self.expected = expected
        }

        init(_ name: String, _ operation: Op, _ inputs: [TensorShape], outputs: Int = 1, error: String) {
            self.name = name
            self.operation = operation
            self.inputs = inputs
            self.outputs = outputs
            self.expected = nil
            self.error = error
        }
    }

    func check(_ cases: [Case], file: StaticString = #filePath, line: UInt = #line) {
        for item in cases {
            let node = Node(name: "layer_\(item.name)", operation: item.operation,
                            inputs: item.inputs.indices.map { "in\($0)" }, outputs: (0..<item.outputs).map { "out\($0)" })
            do {
                let shapes = try ShapeInference.outputShapes(of: node, inputs: item.inputs)
                if let expected = item.expected {
                    XCTAssertEqual(shapes, expected, item.name, file: file, line: line)
                } else {
                    XCTFail("\(item.name): expected an error, got \(shapes)", file: file, line: line)
                }
            } catch {
                if item.expected != nil {
                    XCTFail("\(item.name): unexpected error \(error)", file: file, line: line)
                } else {
                    XCTAssertTrue(error.message.hasPrefix("layer '\(node.name)': "), "\(item.name): \(error)", file: file, line: line)
                    XCTAssertTrue(error.message.contains(item.error), "\(item.name): '\(error)' lacks '\(item.error)'", file: file, line: line)
                }
            }
        }
    }

    // out = floor((in + pads - ((k - 1) * d + 1)) / s) + 1
    func testConvolution() {
        check([
            Case("7x7/4 on 227", convolution(out: 8, kernelChannels: 3, kernel: Size2(square: 7), stride: Size2(square: 4)),
                 [shape(3, 227, 227)], [shape(8, 56, 56)]),
            Case("3x3 pad 1 keeps the size", convolution(out: 16, kernelChannels: 3, kernel: Size2(square: 3), padding: .explicit(Edges(all: 1))),
                 [shape(3, 32, 32)], [shape(16, 32, 32)]),
            Case("floor rounding", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3), stride: Size2(square: 2)),
                 [shape(1, 10, 10)], [shape(1, 4, 4)]),
            // h: (10 + 1 - 3) / 2 + 1 = 5; w: (12 + 4 - 5) / 1 + 1 = 12
            Case("rectangular kernel, asymmetric pads", convolution(out: 4, kernelChannels: 3, kernel: Size2(3, 5), stride: Size2(2, 1),
                                                                     padding: .explicit(Edges(top: 1, bottom: 0, left: 2, right: 2))),
                 [shape(3, 10, 12)], [shape(4, 5, 12)]),
            // extent (3 - 1) * 2 + 1 = 5: 9 - 5 + 1 = 5
            Case("dilation 2", convolution(out: 2, kernelChannels: 1, kernel: Size2(square: 3), dilation: Size2(square: 2)),
                 [shape(1, 9, 9)], [shape(2, 5, 5)]),
            // (16 + 4 - 5) / 2 + 1 = 8
            Case("dilation 2, stride 2, pad 2", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3), stride: Size2(square: 2),
                                                             dilation: Size2(square: 2), padding: .explicit(Edges(all: 2))),
                 [shape(1, 16, 16)], [shape(1, 8, 8)]),
            // h: extent (3-1)*3+1 = 7, (20 - 7)/1 + 1 = 14; w: extent 1, 20
            Case("dilation per axis", convolution(out: 1, kernelChannels: 1, kernel: Size2(3, 1), dilation: Size2(3, 1)),
                 [shape(1, 20, 20)], [shape(1, 14, 20)]),
            Case("2 groups", convolution(out: 6, kernelChannels: 4, groups: 2, kernel: Size2(square: 1)),
                 [shape(8, 5, 5)], [shape(6, 5, 5)]),
            Case("depthwise", convolution(out: 8, kernelChannels: 1, groups: 8, kernel: Size2(square: 3), padding: .explicit(Edges(all: 1))),
                 [shape(8, 5, 5)], [shape(8, 5, 5)]),
            // same: ceil(in / stride)
            Case("same, stride 2, odd sizes", convolution(out: 8, kernelChannels: 3, kernel: Size2(square: 3), stride: Size2(square: 2),
                                                           padding: .same(topLeftHeavy: false)),
                 [shape(3, 7, 9)], [shape(8, 4, 5)]),
            Case("same, stride 3", convolution(out: 8, kernelChannels: 3, kernel: Size2(square: 5), stride: Size2(square: 3),
                                                padding: .same(topLeftHeavy: true)),
                 [shape(3, 8, 9)], [shape(8, 3, 3)]),
            Case("same, stride 1", convolution(out: 2, kernelChannels: 3, kernel: Size2(square: 4), padding: .same(topLeftHeavy: true)),
                 [shape(3, 7, 7)], [shape(2, 7, 7)]),
            Case("kernel as large as the padded input", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 4),
                                                                     padding: .explicit(Edges(all: 1))),
                 [shape(1, 2, 2)], [shape(1, 1, 1)]),

            Case("channels do not fit", convolution(out: 6, kernelChannels: 3, groups: 2, kernel: Size2(square: 1)),
                 [shape(8, 5, 5)], error: "expects 3 x 2 groups = 6 input channels, gets 8"),
            Case("zero groups", convolution(out: 6, kernelChannels: 3, groups: 0, kernel: Size2(square: 1)),
                 [shape(3, 5, 5)], error: "channel or group count 0 is out of range (1...1073741824)"),
            Case("window larger than the input", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3)),
                 [shape(1, 2, 2)], error: "window 3 is larger than the padded input 2"),
            Case("dilated window larger than the input", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3), dilation: Size2(square: 4)),
                 [shape(1, 8, 8)], error: "window 9 is larger than the padded input 8"),
            Case("stride 0", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 1), stride: Size2(1, 0)),
                 [shape(1, 4, 4)], error: "stride 0 is out of range"),
            Case("deconvolution stride 0", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 1), stride: Size2(0, 1),
                                                       deconvolution: true),
                 [shape(1, 4, 4)], error: "stride 0 is out of range"),
            Case("input larger than any tensor", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 1)),
                 [shape(1, 1 << 31, 4)], error: "an input has the shape 1x2147483648x4, too large"),
        ])
    }

    // out = (in - 1) * s + (k - 1) * d + 1 - pads; same: in * s; or the fixed output shape.
    func testDeconvolution() {
        check([
            // 3 * 2 + 3 + 1 - 2 = 8
            Case("4x4/2 pad 1 doubles", convolution(out: 2, kernelChannels: 4, kernel: Size2(square: 4), stride: Size2(square: 2),
                                                     padding: .explicit(Edges(all: 1)), deconvolution: true),
                 [shape(4, 4, 4)], [shape(2, 8, 8)]),
            // 4 + 2 * 2 + 1 = 9
            Case("dilation 2", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3), dilation: Size2(square: 2), deconvolution: true),
                 [shape(1, 5, 5)], [shape(1, 9, 9)]),
            // h: 3 * 2 + 2 + 1 - 1 = 8; w: 3 * 2 + 2 + 1 - 0 = 9
            Case("asymmetric pads", convolution(out: 1, kernelChannels: 1, kernel: Size2(square: 3), stride: Size2(square: 2),
                                                 padding: .explicit(Edges(top: 1)), deconvolution: true),
                 [shape(1, 4, 4)], [shape(1, 8, 9)]),
            Case("same", convolution(out: 5, kernelChannels: 3, kernel: Size2(square: 3), stride: Size2(2, 3),
                                      padding: .same(topLeftHeavy: false), deconvolution: true),
                 [shape(3, 7, 5)], [shape(5, 14, 15)]),
            Case("fixed output shape", convolution(out: 5, kernelChannels: 3, kernel: Size2(square: 3), stride: Size2(square: 2),
                                                    deconvolution: true, outputShape: [20, 30]),
                 [shape(3, 9, 14)], [shape(5, 20, 30)]),
            // (3 - 1) * 2 + 1 + 1 = 6
            // A deconvolution's kernelChannels is all its input channels (coremltools' layout,
            // Tests/Fixtures/runtime/deconv_groups).
            Case("2 groups", convolution(out: 6, kernelChannels: 4, groups: 2, kernel: Size2(square: 2), stride: Size2(square: 2),
                                          deconvolution: true),
                 [shape(4, 3, 3)], [shape(6, 6, 6)]),
            Case("channels do not fit", convolution(out: 6, kernelChannels: 4, groups: 2, kernel: Size2(square: 2), deconvolution: true),
                 [shape(3, 3, 3)], error: "expects 4 input channels in 2 groups, gets 3"),
        ])
    }

    func testDeconvolutionWeightCountFollowsCoreMLsLayout() {
        // [kernelChannels = all input channels, outputChannels / groups, kH, kW]
        guard case .convolution(let conv) = convolution(out: 6, kernelChannels: 4, groups: 2, kernel: Size2(2, 3), deconvolution: true) else {
            return XCTFail()
        }
        XCTAssertEqual(conv.expectedWeightCount, 4 * 3 * 2 * 3)
        guard case .convolution(let plain) = convolution(out: 6, kernelChannels: 2, groups: 2, kernel: Size2(2, 3)) else { return XCTFail() }
        XCTAssertEqual(plain.expectedWeightCount, 6 * 2 * 2 * 3)
    }

    func testPooling() {
        check([
            Case("explicit 2/2", pooling(Size2(square: 2), Size2(square: 2)), [shape(3, 10, 10)], [shape(3, 5, 5)]),
            Case("explicit 3/2 floors", pooling(Size2(square: 3), Size2(square: 2)), [shape(3, 11, 12)], [shape(3, 5, 5)]),
            Case("explicit 3/2 pad 1", pooling(Size2(square: 3), Size2(square: 2), .explicit(Edges(all: 1))),
                 [shape(3, 11, 11)], [shape(3, 6, 6)]),
            Case("same 3/2", pooling(Size2(square: 3), Size2(square: 2), .same(topLeftHeavy: false)), [shape(3, 7, 8)], [shape(3, 4, 4)]),
            Case("global", pooling(Size2(square: 100), Size2(square: 100), global: true), [shape(5, 7, 9)], [shape(5)]),
            Case("global of a vector", pooling(Size2(square: 3), Size2(square: 2), global: true), [shape(5)], [shape(5)]),
            Case("window larger than the input", pooling(Size2(square: 3), Size2(square: 1)), [shape(1, 2, 2)],
                 error: "window 3 is larger than the padded input 2"),
            Case("kernel 0", pooling(Size2(0, 2), Size2(square: 1)), [shape(1, 4, 4)], error: "kernel size 0 is out of range"),
        ])
    }

    /// Caffe: out = ceil((in + 2p - k) / s) + 1, minus 1 when p > 0 and the
    /// last window would start in the padding: (out - 1) * s >= in + p.
    func testPoolingIncludeLastPixelRoundsUpLikeCaffe() {
        let cases: [(input: Int, kernel: Int, stride: Int, pad: Int, expected: Int)] = [
            (56, 3, 2, 0, 28),   // ceil(53 / 2) + 1 = 28 (floor would give 27)
            (13, 3, 2, 0, 6),    // ceil(10 / 2) + 1 = 6
            (55, 3, 2, 0, 27),   // ceil(52 / 2) + 1 = 27
            (6, 3, 2, 0, 3),     // ceil(3 / 2) + 1 = 3 (floor: 2)
            (227, 3, 2, 0, 113),
            (112, 2, 2, 0, 56),
            (7, 3, 2, 1, 4),     // ceil(6 / 2) + 1 = 4; 3 * 2 = 6 < 8: kept
            (6, 3, 2, 1, 4),     // ceil(5 / 2) + 1 = 4; 6 < 7: kept (floor: 3)
            (5, 2, 2, 1, 3),     // ceil(5 / 2) + 1 = 4; 3 * 2 = 6 >= 6: dropped
            (3, 2, 2, 1, 2),     // ceil(3 / 2) + 1 = 3; 2 * 2 = 4 >= 4: dropped
            (2, 3, 3, 1, 1),     // ceil(1 / 3) + 1 = 2; 1 * 3 = 3 >= 3: dropped
            (4, 3, 3, 1, 2),     // ceil(3 / 3) + 1 = 2; 3 < 5: kept
            (8, 2, 2, 1, 5),     // ceil(8 / 2) + 1 = 5; 8 < 9: kept
            (14, 3, 2, 1, 8),    // ceil(13 / 2) + 1 = 8; 14 < 15: kept
            (15, 4, 3, 2, 6),    // ceil(15 / 3) + 1 = 6; 15 < 17: kept
            (10, 4, 3, 2, 4),    // ceil(10 / 3) + 1 = 5; 12 >= 12: dropped
        ]
        check(cases.map { item in
            Case("in \(item.input) k \(item.kernel) s \(item.stride) p \(item.pad)",
                 pooling(Size2(square: item.kernel), Size2(square: item.stride), .includeLastPixel(Size2(square: item.pad))),
                 [shape(2, item.input, item.input)], [shape(2, item.expected, item.expected)])
        } + [
            // Per-axis pads: h as (5, 2, 2, 1) -> 3; w as (6, 2, 2, 0) -> ceil(4 / 2) + 1 = 3.
            Case("per-axis pads", pooling(Size2(square: 2), Size2(square: 2), .includeLastPixel(Size2(1, 0))),
                 [shape(2, 5, 6)], [shape(2, 3, 3)]),
            Case("window larger than the padded input", pooling(Size2(square: 4), Size2(square: 1), .includeLastPixel(Size2(square: 1))),
                 [shape(1, 1, 1)], error: "window 4 is larger than the padded input 3"),
        ])
    }

    func testIncludeLastPixelChecksBothAxesWhenEitherIsPaddedLikeCaffe() throws {
        // Caffe (PoolingLayer::Reshape) drops the last window on both axes
        // when pad_h || pad_w: h = ceil((5 - 1) / 3) + 1 = 3, and 2 * 3 >= 5 + 0, so 2.
        // w = ceil((5 + 2 - 1) / 3) + 1 = 3, and 2 * 3 >= 5 + 1, so 2.
        let node = Node("pool", pooling(Size2(square: 1), Size2(square: 3), .includeLastPixel(Size2(0, 1))), input: "x")
        XCTAssertEqual(try ShapeInference.outputShapes(of: node, inputs: [shape(1, 5, 5)]), [shape(1, 2, 2)])
        // With no padding at all nothing is dropped: ceil(4 / 3) + 1 = 3.
        let unpadded = Node("pool", pooling(Size2(square: 1), Size2(square: 3), .includeLastPixel(Size2(0, 0))), input: "x")
        XCTAssertEqual(try ShapeInference.outputShapes(of: unpadded, inputs: [shape(1, 5, 5)]), [shape(1, 3, 3)])
    }

    func testImageInputWithAnEmptySizeIsRejected() {
        for (width, height) in [(0, 227), (227, 0), (-4, 8)] {
            let model = Model(inputs: [Input(name: "image", kind: .image(ImageInput(width: width, height: height)))],
                              outputs: [Output(name: "r")], nodes: [Node("r", .activation(.relu), input: "image")])
            XCTAssertThrowsError(try model.validate(), "\(width)x\(height)") { error in
                XCTAssertTrue((error as? ModelError)?.message.hasPrefix("input 'image': ") == true, "\(error)")
            }
        }
    }

    func testInnerProductConcatAndElementwise() {
        let product = { (inputs: Int, outputs: Int) in
            Op.innerProduct(InnerProduct(inputChannels: inputs, outputChannels: outputs, weights: Weights(unloadedCount: inputs * outputs)))
        }
        check([
            // Core ML (specifications 1-3) takes vectors only: a map must be flattened first.
            Case("inner product of a map", product(6272, 8), [shape(8, 28, 28)], error: "takes a [C, 1, 1] vector, gets 8x28x28"),
            Case("inner product of a vector", product(16, 3), [shape(16)], [shape(3)]),
            Case("inner product size mismatch", product(16, 3), [shape(32)], error: "expects 16 input values, gets 32x1x1 = 32"),

            Case("concat", .concat, [shape(3, 4, 5), shape(5, 4, 5), shape(1, 4, 5)], [shape(9, 4, 5)]),
            Case("concat of one", .concat, [shape(3, 4, 5)], error: "has 1 inputs, the operation takes at least 2"),
            Case("concat of different sizes", .concat, [shape(3, 4, 5), shape(3, 4, 6)], error: "cannot join 3x4x5, 3x4x6 along axis -3"),

            Case("add, same shapes", .add(constant: 0), [shape(3, 4, 5), shape(3, 4, 5)], [shape(3, 4, 5)]),
            Case("add, scalar", .add(constant: 0), [shape(3, 4, 5), shape(1, 1, 1)], [shape(3, 4, 5)]),
            Case("add, scalar first", .add(constant: 0), [shape(1, 1, 1), shape(3, 4, 5)], [shape(3, 4, 5)]),
            Case("add, per channel", .add(constant: 0), [shape(3, 4, 5), shape(3)], [shape(3, 4, 5)]),
            Case("add, per pixel", .add(constant: 0), [shape(1, 4, 5), shape(3, 4, 5)], [shape(3, 4, 5)]),
            Case("add, channel and pixel", .add(constant: 0), [shape(3), shape(1, 4, 5)], [shape(3, 4, 5)]),
            Case("add, three inputs", .add(constant: 0), [shape(3, 4, 5), shape(3), shape(1, 4, 5)], [shape(3, 4, 5)]),
            Case("add, one input", .add(constant: 2), [shape(3, 4, 5)], [shape(3, 4, 5)]),
            Case("multiply", .multiply(constant: 1), [shape(1, 4, 5), shape(2)], [shape(2, 4, 5)]),
            Case("maximum", .maximum, [shape(2, 4, 5), shape(2, 4, 5)], [shape(2, 4, 5)]),
            Case("minimum", .minimum, [shape(2, 4, 5), shape(2, 1, 1)], [shape(2, 4, 5)]),
            // Core ML gives max and min the first input's shape.
            Case("minimum, smaller first", .minimum, [shape(2, 1, 1), shape(2, 4, 5)], error: "the first input 2x1x1 must have the full shape 2x4x5"),
            Case("average", .average, [shape(2, 4, 5), shape(1)], [shape(2, 4, 5)]),
            Case("add, channel mismatch", .add(constant: 0), [shape(3, 4, 5), shape(2, 4, 5)], error: "cannot combine shapes 3x4x5 and 2x4x5"),
            Case("add, width mismatch", .add(constant: 0), [shape(3, 4, 5), shape(3, 4, 4)], error: "cannot combine shapes"),
            Case("maximum, mismatch in a third input", .maximum, [shape(3, 4, 5), shape(1), shape(3, 2, 5)], error: "cannot combine shapes"),
        ])
    }

    func testLayoutOperations() {
        check([
            Case("flatten", .flatten(.channelFirst), [shape(2, 3, 4)], [shape(24)]),
            Case("flatten, channel last", .flatten(.channelLast), [shape(2, 3, 4)], [shape(24)]),
            Case("flatten a vector", .flatten(.channelFirst), [shape(7)], [shape(7)]),

            Case("reshape to [C, H, W]", .reshape(targetShape: [6, 2, 2], order: .channelFirst), [shape(2, 3, 4)], [shape(6, 2, 2)]),
            Case("reshape to [C, 1, 1]", .reshape(targetShape: [24, 1, 1], order: .channelLast), [shape(2, 3, 4)], [shape(24)]),
            // Core ML's validator: a reshape target has 3 or 4 dimensions.
            Case("reshape to [C]", .reshape(targetShape: [24], order: .channelLast), [shape(2, 3, 4)], error: "reshape target [24] is not [C, H, W]"),
            Case("reshape a vector to a map", .reshape(targetShape: [1, 4, 6], order: .channelFirst), [shape(24)], [shape(1, 4, 6)]),
            Case("reshape, wrong count", .reshape(targetShape: [5, 1, 1], order: .channelFirst), [shape(2, 3, 4)],
                 error: "cannot reshape 2x3x4 (24 values) to [5, 1, 1]"),
            Case("reshape to 2 dimensions", .reshape(targetShape: [2, 12], order: .channelFirst), [shape(2, 3, 4)], error: "is not [C, H, W]"),

            // dims = [1, C, H, W] = [1, 2, 3, 4]; output = dims[axes[1]], dims[axes[2]], dims[axes[3]]
            Case("permute, identity", .permute(axes: [0, 1, 2, 3]), [shape(2, 3, 4)], [shape(2, 3, 4)]),
            Case("permute C and H", .permute(axes: [0, 2, 1, 3]), [shape(2, 3, 4)], [shape(3, 2, 4)]),
            Case("permute C and W", .permute(axes: [0, 3, 2, 1]), [shape(2, 3, 4)], [shape(4, 3, 2)]),
            Case("permute H and W", .permute(axes: [0, 1, 3, 2]), [shape(2, 3, 4)], [shape(2, 4, 3)]),
            Case("permute to H, W, C", .permute(axes: [0, 2, 3, 1]), [shape(2, 3, 4)], [shape(3, 4, 2)]),
            Case("permute to W, C, H", .permute(axes: [0, 3, 1, 2]), [shape(2, 3, 4)], [shape(4, 2, 3)]),
            Case("permute moving the sequence axis", .permute(axes: [1, 0, 2, 3]), [shape(2, 3, 4)], error: "permutes 4 axes, the input 2x3x4 has 3"),
            Case("permute, repeated axis", .permute(axes: [0, 1, 1, 3]), [shape(2, 3, 4)], error: "not a permutation"),
            Case("permute, three axes: a transpose's", .permute(axes: [0, 2, 1]), [shape(2, 3, 4)], [shape(2, 4, 3)]),
            Case("permute, no axes", .permute(axes: []), [shape(2, 3, 4)], error: "permutes 0 axes"),

            Case("padding", .padding(Padding(kind: .constant(0), edges: Edges(top: 1, bottom: 2, left: 3, right: 4))),
                 [shape(3, 4, 5)], [shape(3, 7, 12)]),
            Case("reflection padding", .padding(Padding(kind: .reflection, edges: Edges(all: 2))), [shape(3, 4, 5)], [shape(3, 8, 9)]),

            Case("crop edges", .crop(.edges(Edges(top: 1, bottom: 2, left: 3, right: 4))), [shape(3, 10, 12)], [shape(3, 7, 5)]),
            Case("crop like a reference", .crop(.like(offset: [1, 2])), [shape(3, 10, 12), shape(7, 6, 8)], [shape(3, 6, 8)]),
            Case("crop like without a reference", .crop(.like(offset: [0, 0])), [shape(3, 10, 12)],
                 error: "has 1 inputs, the operation takes 2"),
            Case("crop like past the input", .crop(.like(offset: [5, 2])), [shape(3, 10, 12), shape(7, 6, 8)],
                 error: "a 6x8 crop at offset [5, 2] runs past the 10x12 input"),
            Case("crop like, one offset", .crop(.like(offset: [1])), [shape(3, 10, 12), shape(7, 6, 8)],
                 error: "crop offset [1] is not [top, left]"),
            Case("crop edges with a reference", .crop(.edges(Edges(all: 1))), [shape(3, 10, 12), shape(7, 6, 8)],
                 error: "has 2 inputs, the operation takes 1"),

            Case("upsample", .upsample(Upsample(scale: Size2(2, 3))), [shape(3, 4, 5)], [shape(3, 8, 15)]),
            Case("upsample bilinear", .upsample(Upsample(scale: Size2(square: 2), mode: .bilinear)), [shape(1, 1, 1)], [shape(1, 2, 2)]),
        ])
    }

    // Slice (Op.swift): start..<end by stride; negative indices count from the end as in Python
    // (start = max(size + start, 0), end = size + end, so -1 stops before the last element).
    // length = ceil((end - start) / stride), 0 when empty.
    func testSlice() {
        func slice(_ axis: ModelFormat.Slice.Axis, _ start: Int, _ end: Int, _ stride: Int = 1) -> Op {
            .slice(ModelFormat.Slice(axis: axis, start: start, end: end, stride: stride))
        }
        check([
            Case("channels 2..<8", slice(.channel, 2, 8), [shape(10, 4, 4)], [shape(6, 4, 4)]),
            Case("channels 2..<8 by 3", slice(.channel, 2, 8, 3), [shape(10, 4, 4)], [shape(2, 4, 4)]),
            Case("channels 2..<9 by 3", slice(.channel, 2, 9, 3), [shape(10, 4, 4)], [shape(3, 4, 4)]),
            Case("negative start and end", slice(.channel, -4, -1), [shape(10, 4, 4)], [shape(3, 4, 4)]),
            Case("end -1 leaves out the last", slice(.channel, 0, -1), [shape(10, 4, 4)], [shape(9, 4, 4)]),
            Case("end -2", slice(.channel, 1, -2), [shape(10, 4, 4)], [shape(7, 4, 4)]),
            // Core ML does not clamp an end past the axis, and computes a negative
            // start before a positive end differently: both refused.
            Case("end past the axis", slice(.channel, 0, 100), [shape(10, 4, 4)], error: "slice end 100 is past the axis' 10 elements"),
            Case("start before the axis, end past it", slice(.channel, -20, 100), [shape(10, 4, 4)], error: "is past the axis"),
            Case("start before the axis, negative end", slice(.channel, -20, -1), [shape(10, 4, 4)], [shape(9, 4, 4)]),
            Case("every other, to the end", slice(.channel, 0, 10, 2), [shape(10, 4, 4)], [shape(5, 4, 4)]),
            Case("negative start, positive end", slice(.channel, -4, 10, 3), [shape(10, 4, 4)],
                 error: "slice -4..<10 mixes a negative start with a positive end"),
            Case("height", slice(.height, 0, 5), [shape(3, 10, 4)], [shape(3, 5, 4)]),
            Case("width, stride 2, end -1", slice(.width, 3, -1, 2), [shape(3, 4, 10)], [shape(3, 4, 3)]),
            Case("empty range", slice(.channel, 5, 5), [shape(10, 4, 4)], [shape(0, 4, 4)]),
            Case("end 0", slice(.channel, 0, 0), [shape(10, 4, 4)], [shape(0, 4, 4)]),
            Case("start past the end", slice(.channel, 12, 10), [shape(10, 4, 4)], [shape(0, 4, 4)]),
            Case("end before start", slice(.channel, -2, -5), [shape(10, 4, 4)], [shape(0, 4, 4)]),
            Case("stride 0", slice(.channel, 0, 4, 0), [shape(10, 4, 4)], error: "slice stride 0 is out of range"),
        ])
    }

    func testSplitReduceAndConstant() {
        check([
            Case("split in 3", .split, [shape(6, 2, 2)], outputs: 3, Array(repeating: shape(2, 2, 2), count: 3)),
            Case("split in 1", .split, [shape(6, 2, 2)], outputs: 1, error: "a split needs at least 2 outputs, has 1"),
            Case("split unevenly", .split, [shape(6, 2, 2)], outputs: 4, error: "cannot split 6 channels into 4 equal parts"),
            Case("split into nothing", .split, [shape(6, 2, 2)], outputs: 0, error: "a split needs at least 2 outputs, has 0"),

            Case("reduce CHW", .reduce(Reduce(mode: .sum, axes: .chw)), [shape(3, 4, 5)], [shape(1)]),
            Case("reduce HW", .reduce(Reduce(mode: .average, axes: .hw)), [shape(3, 4, 5)], [shape(3)]),
            Case("reduce C", .reduce(Reduce(mode: .max, axes: .c)), [shape(3, 4, 5)], [shape(1, 4, 5)]),
            Case("reduce H", .reduce(Reduce(mode: .l2, axes: .h)), [shape(3, 4, 5)], [shape(3, 1, 5)]),
            Case("reduce W", .reduce(Reduce(mode: .argmax, axes: .w)), [shape(3, 4, 5)], [shape(3, 4, 1)]),

            Case("constant [C, H, W]", .constant(shape: [2, 3, 4], data: Weights(unloadedCount: 24)), [], [shape(2, 3, 4)]),
            // Any rank (the backend writes a map model's [C, H, W] one as the 3-D load constant layer).
            Case("constant [C]", .constant(shape: [5], data: Weights(unloadedCount: 5)), [], [TensorShape([5])]),
            Case("constant with an input", .constant(shape: [2, 3, 4], data: Weights(unloadedCount: 24)), [shape(9)],
                 error: "has 1 inputs, the operation takes 0"),
            Case("constant [C, H]", .constant(shape: [2, 3], data: Weights(unloadedCount: 6)), [], [TensorShape([2, 3])]),
            Case("no input", .softmax, [], error: "has 0 inputs, the operation takes 1"),
        ])
    }

    func testShapePreservingOperations() {
        let w = Weights([1, 2, 3])
        let operations: [Op] = [
            .activation(.relu), .activation(.leakyRelu(alpha: 0.1)), .activation(.prelu(alpha: w)), .activation(.clip(min: 0, max: 6)),
            .batchNorm(BatchNorm(channels: 3, epsilon: 1e-5, gamma: w, beta: w, mean: w, variance: w)),
            .scale(Scale(shape: [3], scale: w)), .bias(Bias(shape: [3], bias: w)),
            .lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 5, k: 1)), .softmax,
            .unary(Unary(kind: .sqrt)), .l2Normalize(epsilon: 1e-6),
        ]
        check(operations.map { Case($0.kindName, $0, [shape(3, 4, 5)], [shape(3, 4, 5)]) })
    }

    // MARK: whole models

    func testShapesOfAModel() throws {
        let model = Model(
            inputs: [Input(name: "image", kind: .image(ImageInput(width: 32, height: 24, colorSpace: .grayscale))),
                     Input(name: "vector", kind: .array(shape: [5]))],
            outputs: [],
            nodes: [
                Node("conv", convolution(out: 4, kernelChannels: 1, kernel: Size2(square: 3), padding: .same(topLeftHeavy: false)), input: "image"),
                Node(name: "halves", operation: .split, inputs: ["conv"], outputs: ["a", "b"]),
                Node(name: "sum", operation: .add(constant: 0), inputs: ["a", "b"], outputs: ["sum"]),
                Node("flat", .flatten(.channelFirst), input: "sum"),
            ])
        let shapes = try ShapeInference.shapes(of: model)
        XCTAssertEqual(shapes, ["image": shape(1, 24, 32), "vector": shape(5), "conv": shape(4, 24, 32),
                                "a": shape(2, 24, 32), "b": shape(2, 24, 32), "sum": shape(2, 24, 32), "flat": shape(2 * 24 * 32)])
    }

    func testModelLevelShapeErrors() {
        func error(_ model: Model) -> ModelError? {
            do {
                _ = try ShapeInference.shapes(of: model)
                return nil
            } catch {
                return error
            }
        }
        let input = Input(name: "x", kind: .array(shape: [4, 6, 6]))
        XCTAssertEqual(error(Model(inputs: [input], outputs: [], nodes: [Node(name: "c", operation: .softmax, inputs: ["x"], outputs: ["p", "q"])]))?.message,
                       "layer 'c': has 2 outputs, the operation gives 1")
        XCTAssertEqual(error(Model(inputs: [input], outputs: [], nodes: [Node("s", .slice(ModelFormat.Slice(axis: .height, start: 3, end: 3)), input: "x")]))?.message,
                       "layer 's': output 's' would have the empty shape 4x0x6")
        XCTAssertEqual(error(Model(inputs: [input], outputs: [], nodes: [Node("k", .crop(.edges(Edges(top: 3, bottom: 3))), input: "x")]))?.message,
                       "layer 'k': output 'k' would have the empty shape 4x0x6")
        XCTAssertEqual(error(Model(inputs: [Input(name: "bad", kind: .array(shape: [4, 6]))], outputs: [], nodes: []))?.message,
                       "input 'bad': shape [4, 6] is not [C] or [C, H, W] with positive sizes")
        XCTAssertEqual(error(Model(inputs: [Input(name: "zero", kind: .array(shape: [0, 6, 6]))], outputs: [], nodes: []))?.message,
                       "input 'zero': shape [0, 6, 6] is not [C] or [C, H, W] with positive sizes")
    }

    func testArrayInputWithNegativeSizesIsRejected() {
        // Two negative sizes multiply to a positive count.
        for dimensions in [[2, -1, -3], [-2, -1, 3], [-5]] {
            let model = Model(inputs: [Input(name: "x", kind: .array(shape: dimensions))], outputs: [], nodes: [])
            XCTAssertThrowsError(try ShapeInference.shapes(of: model), "\(dimensions)") { error in
                XCTAssertEqual((error as? ModelError)?.message,
                               "input 'x': shape \(dimensions) is not [C] or [C, H, W] with positive sizes")
            }
        }
    }

    func testTensorShape() {
        XCTAssertEqual(TensorShape(featureShape: [3]), shape(3))
        XCTAssertEqual(TensorShape(featureShape: [3, 4, 5]), shape(3, 4, 5))
        XCTAssertNil(TensorShape(featureShape: []))
        XCTAssertNil(TensorShape(featureShape: [3, 4]))
        XCTAssertNil(TensorShape(featureShape: [1, 3, 4, 5]))
        XCTAssertEqual(shape(3, 4, 5).count, 60)
        XCTAssertEqual(shape(3, 4, 5).dimensions, [3, 4, 5])
        XCTAssertEqual(shape(3).featureShape, [3])
        XCTAssertEqual(shape(3, 1, 2).featureShape, [3, 1, 2])
        XCTAssertEqual(shape(3, 4, 5).description, "3x4x5")
    }
}
