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
