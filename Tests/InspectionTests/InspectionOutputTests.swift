import Inspection
import ModelFormat
import XCTest

/// Attributes, weight statistics, precisions, JSON, DOT and color, on
/// models built here.
final class AttributeTests: XCTestCase {
    func convolution(stride: Int = 1, padding: WindowPadding = .explicit(.zero), groups: Int = 1, bias: Bool = true) -> Op {
        .convolution(Convolution(outputChannels: 4, kernelChannels: 4 / groups, groups: groups, kernel: Size2(3, 3),
                                 stride: Size2(square: stride), padding: padding,
                                 weights: Weights(unloadedCount: 4 * (4 / groups) * 9), bias: bias ? Weights(unloadedCount: 4) : nil))
    }

    func testDefaultsAreHiddenInTheTableButPresentInJSON() {
        XCTAssertEqual(convolution().attributeText, "kernel 3x3")
        XCTAssertEqual(convolution(stride: 2, padding: .explicit(Edges(all: 1)), groups: 2, bias: false).attributeText,
                       "kernel 3x3, stride 2x2, pad 1, groups 2, no bias")
        XCTAssertEqual(convolution(padding: .explicit(Edges(top: 0, bottom: 1, left: 0, right: 1))).attributeText, "kernel 3x3, pad 0,1,0,1")
        XCTAssertEqual(convolution(padding: .same(topLeftHeavy: false)).attributeText, "kernel 3x3, pad same")
        let keys = convolution().definition.attributes.map(\.key)
        XCTAssertEqual(keys, ["outputChannels", "kernelChannels", "kernel", "stride", "dilation", "padding", "pad", "groups", "hasBias"])
        XCTAssertEqual(convolution().definition.attributes.first { $0.key == "stride" }?.value, .ints([1, 1]))
    }

    func testActivationsPoolingAndElementwiseConstants() {
        XCTAssertEqual(Op.activation(.leakyRelu(alpha: 0.1)).attributeText, "leakyRelu alpha 0.1")
        XCTAssertEqual(Op.activation(.relu).attributeText, "relu")
        let caffePool = Op.pooling(Pooling(kind: .max, kernel: Size2(square: 3), stride: Size2(square: 2), padding: .includeLastPixel(Size2(0, 0))))
        XCTAssertEqual(caffePool.attributeText, "max, kernel 3x3, stride 2x2, ceil")
        XCTAssertEqual(Op.pooling(Pooling(kind: .average, kernel: Size2(square: 1), stride: Size2(square: 1), global: true)).attributeText,
                       "average, global")
        // A constant matters only with one input.
        XCTAssertEqual(Node(name: "m", operation: .multiply(constant: 0.5), inputs: ["a"], outputs: ["m"]).attributeText, "constant 0.5")
        XCTAssertEqual(Node(name: "m", operation: .multiply(constant: 0), inputs: ["a", "b"], outputs: ["m"]).attributeText, "")
        XCTAssertEqual(Op.lrn(LRN(alpha: 1e-4, beta: 0.75, localSize: 5, k: 1)).attributeText, "size 5, alpha 0.0001, beta 0.75")
    }
}

final class WeightsAndPrecisionTests: XCTestCase {
    func testStatisticsCountNaNAndInfinityApartFromTheFiniteValues() throws {
        let statistics = try XCTUnwrap(WeightStatistics(Weights([1, 2, 3, .nan, .infinity, -.infinity])))
        XCTAssertEqual(statistics.count, 6)
        XCTAssertEqual(statistics.nanCount, 1)
        XCTAssertEqual(statistics.infinityCount, 2)
        XCTAssertEqual(statistics.minimum, 1)
        XCTAssertEqual(statistics.maximum, 3)
        XCTAssertEqual(statistics.mean, 2)
        XCTAssertEqual(try XCTUnwrap(statistics.standardDeviation), (2.0 / 3).squareRoot(), accuracy: 1e-12)
        XCTAssertNil(WeightStatistics(Weights(unloadedCount: 4)), "unloaded weights have no statistics")
        XCTAssertNil(try XCTUnwrap(WeightStatistics(Weights([.nan]))).mean)
    }

    func testParametersAreCountedPerStoredPrecision() {
        let model = SampleModel.classifier()
        var inspected = InspectedModel(path: "m", format: FileFormatInfo(id: "coreml", name: "Core ML"), content: .network(model))
        XCTAssertEqual(inspected.parametersByPrecision.map(\.precision), [.float32])
        XCTAssertEqual(inspected.parametersByPrecision.first?.count, ModelStatistics(model).parameterCount)
        inspected.precisions = ["fc8": ["weights": .float16]]
        let parts = inspected.parametersByPrecision
        XCTAssertEqual(parts.map(\.precision), [.float16, .float32])
        XCTAssertEqual(parts[0].count, 6272 * 8)
        XCTAssertEqual(parts[0].bytes, 6272 * 8 * 2)
        XCTAssertEqual(parts[1].count, 8 * 3 * 49 + 8 + 8)
        let summary = SummaryText.render(inspected)
        XCTAssertTrue(summary.contains("Parameters:   51,368 (float16: 50,176, 98.0 KB; float32: 1,192, 4.7 KB)"), summary)
        let tensors = inspected.weightTensors.map { "\($0.layer).\($0.name) \($0.shape) \($0.precision)" }
        XCTAssertEqual(tensors, ["conv1.weights [8, 3, 7, 7] float32", "conv1.bias [8] float32",
                                 "fc8.weights [8, 6272] float16", "fc8.bias [8] float32"])
    }

    func testConvertsSummaryIsUnchangedByTheInspectionExtensions() {
        // `convert` prints this form; its layout is what the README shows.
        let text = SummaryText.render(SampleModel.classifier(), format: "Core ML model, specification version 1")
        XCTAssertFalse(text.contains("description:"), "convert's summary shows no feature descriptions")
        XCTAssertTrue(text.hasSuffix("Parameters:   51,368 (float32, 200.7 KB)\nMACs:         3,738,112\n"), text)
    }

    /// An image input without a scaler or mean says so, rather than listing a scale of 1 and zero biases.
    func testAnImageWithoutPreprocessingSaysNone() {
        let plain = Model(inputs: [Input(name: "image", kind: .image(ImageInput(width: 4, height: 4)))], outputs: [],
                          nodes: [Node("out", .activation(.relu), input: "image")])
        XCTAssertTrue(SummaryText.render(plain, format: "f").contains("    preprocessing: none (pixel values 0 to 255 as they are)\n"))
        let scaled = Model(inputs: [Input(name: "image", kind: .image(ImageInput(width: 4, height: 4, scale: 2)))], outputs: [],
                           nodes: [Node("out", .activation(.relu), input: "image")])
        XCTAssertTrue(SummaryText.render(scaled, format: "f").contains("    preprocessing: scale 2.0, bias R 0.0 G 0.0 B 0.0\n"))
    }
}

final class RenderingTests: XCTestCase {
    func testJSONEscapesAndKeepsMemberOrder() {
        let value = JSON.object([.init("b", .string("a \"quoted\"\\ line\n\u{1}")), .init("a", .ints([1, 2])),
                                 .init("x", .float(.nan)), .init("f", .float(-114.89585)), .init("e", .array([]))])
        XCTAssertEqual(value.rendered(), """
            {
              "b": "a \\"quoted\\"\\\\ line\\n\\u0001",
              "a": [1, 2],
              "x": null,
              "f": -114.89585,
              "e": []
            }

            """)
    }

    func testDOTLabelsNodesWithTypeAndShapeAndEdgesWithTensors() throws {
        let inspected = InspectedModel(path: "dir/Sample.mlmodel", format: FileFormatInfo(id: "coreml", name: "Core ML"),
                                       content: .network(SampleModel.classifier()))
        let dot = try GraphDot.render(inspected)
        XCTAssertTrue(dot.hasPrefix("digraph \"Sample.mlmodel\" {\n"), dot)
        XCTAssertTrue(dot.contains("in0 [shape=ellipse, label=\"data\\nimage<BGR,227x227>\", fillcolor=\"\(LayerFamily.input.color)\"];"), dot)
        XCTAssertTrue(dot.contains("n0 [label=\"conv1\\nconvolution\\n8x56x56\", fillcolor=\"\(LayerFamily.convolution.color)\"];"), dot)
        XCTAssertTrue(dot.contains("in0 -> n0 [label=\"data\"];"), dot)
        XCTAssertTrue(dot.contains("n5 -> out1 [label=\"classLabelProbs\"];"), dot)
        XCTAssertTrue(dot.hasSuffix("}\n"))
        let blobsOnly = InspectedModel(path: "w.h5", format: FileFormatInfo(id: "caffe-hdf5", name: "Caffe weights (HDF5)"),
                                       content: .weightsOnly(WeightsOnlyFile(layers: [], hasTopology: false)))
        XCTAssertThrowsError(try GraphDot.render(blobsOnly))
    }

    func testColorOnlyWhenAsked() {
        let inspected = InspectedModel(path: "m", format: FileFormatInfo(id: "coreml", name: "Core ML"),
                                       content: .network(SampleModel.classifier()))
        let plain = SummaryText.render(inspected) + LayerTable.render(inspected) + WeightTable.render(inspected)
        XCTAssertFalse(plain.contains("\u{1B}["))
        let colored = SummaryText.render(inspected, style: TextStyle(color: true))
        XCTAssertTrue(colored.hasPrefix("\u{1B}[1mFormat:       \u{1B}[0mCore ML\n"), colored)
        // Colored tables keep their columns aligned: the escapes take no width.
        let table = LayerTable.render(SampleModel.classifier(), style: TextStyle(color: true))
        let stripped = table.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
        XCTAssertEqual(stripped, LayerTable.render(SampleModel.classifier()))
    }
}
