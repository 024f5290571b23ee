import ModelFormat
import XCTest

/// Shape inference of the layout, slicing and model-level operations.
extension ShapeInferenceTests {
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
            // In channel-first order, to any shape (a model of maps writes only [C, H, W] ones).
            Case("reshape to 2 dimensions", .reshape(targetShape: [2, 12], order: .channelFirst), [shape(2, 3, 4)], [TensorShape([2, 12])]),
            Case("reshape to 2 dimensions, channel last", .reshape(targetShape: [2, 12], order: .channelLast), [shape(2, 3, 4)], error: "is not [C, H, W]"),

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

            Case("reduce CHW", .reduce(Reduce(mode: .sum, axes: [-3, -2, -1])), [shape(3, 4, 5)], [shape(1)]),
            Case("reduce HW", .reduce(Reduce(mode: .average, axes: [-2, -1])), [shape(3, 4, 5)], [shape(3)]),
            Case("reduce C", .reduce(Reduce(mode: .max, axes: [-3])), [shape(3, 4, 5)], [shape(1, 4, 5)]),
            Case("reduce H", .reduce(Reduce(mode: .l2, axes: [-2])), [shape(3, 4, 5)], [shape(3, 1, 5)]),
            Case("reduce W", .reduce(Reduce(mode: .argmax, axes: [-1])), [shape(3, 4, 5)], [shape(3, 4, 1)]),

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
