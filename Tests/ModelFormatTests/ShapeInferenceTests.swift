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
}
