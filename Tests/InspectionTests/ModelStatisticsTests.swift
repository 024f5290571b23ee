import Inspection
import ModelFormat
import XCTest

final class ModelStatisticsTests: XCTestCase {
    func testSampleClassifierCountsComputedByHand() {
        let statistics = ModelStatistics(SampleModel.classifier())
        // conv1: 8 x 3 x 7 x 7 weights + 8 biases; fc8: 6272 x 8 weights + 8 biases.
        XCTAssertEqual(statistics.parameterCount, 8 * 3 * 49 + 8 + 6272 * 8 + 8)
        XCTAssertEqual(statistics.weightBytes, 4 * statistics.parameterCount)
        // conv1: 8 x 56 x 56 outputs, each 3 x 7 x 7 products; fc8: 6272 x 8.
        XCTAssertEqual(statistics.multiplyAccumulates, 8 * 56 * 56 * 3 * 49 + 6272 * 8)
        XCTAssertEqual(statistics.layerCounts.map(\.kind), ["convolution", "activation", "pooling", "flatten", "innerProduct", "softmax"])
        XCTAssertTrue(statistics.layerCounts.allSatisfy { $0.count == 1 })
    }

    /// A product's multiply-accumulates: one per output value and inner index.
    func testMatMulCountsComputedByHand() {
        let model = Model(
            inputs: [Input(name: "x", kind: .tensor(shape: [2, 16, 8]))], outputs: [Output(name: "y")],
            nodes: [Node("fc", .defined(MatMul(inputChannels: 8, outputChannels: 4, weights: Weights([Float](repeating: 1, count: 32)))), input: "x"),
                    Node(name: "y", operation: .defined(MatMul(transposeA: true)), inputs: ["fc", "fc"], outputs: ["y"])])
        let statistics = ModelStatistics(model)
        // fc: 2 x 16 x 4 outputs, 8 products each; y: [2, 4, 16] x [2, 16, 4] -> 2 x 4 x 4 outputs, 16 each.
        XCTAssertEqual(statistics.multiplyAccumulates, 2 * 16 * 4 * 8 + 2 * 4 * 4 * 16)
        XCTAssertEqual(statistics.parameterCount, 32)
        XCTAssertEqual(statistics.layerCounts.map(\.kind), ["matmul"])
    }

    func testGroupedNumbersAndByteCounts() {
        XCTAssertEqual(SummaryText.grouped(0), "0")
        XCTAssertEqual(SummaryText.grouped(999), "999")
        XCTAssertEqual(SummaryText.grouped(1000), "1,000")
        XCTAssertEqual(SummaryText.grouped(-1234567), "-1,234,567")
        XCTAssertEqual(SummaryText.byteCount(512), "512 bytes")
        XCTAssertEqual(SummaryText.byteCount(1536), "1.5 KB")
        XCTAssertEqual(SummaryText.byteCount(3 << 20), "3.0 MB")
    }

    func testTypeDescriptions() {
        XCTAssertEqual(SummaryText.typeDescription(Input(name: "x", kind: .image(ImageInput(width: 227, height: 100, colorSpace: .bgr)))),
                       "image<BGR,227x100>")
        XCTAssertEqual(SummaryText.typeDescription(Input(name: "x", kind: .array(shape: [3, 299, 299]))),
                       "multiarray<double,[3,299,299]>")
    }
}
