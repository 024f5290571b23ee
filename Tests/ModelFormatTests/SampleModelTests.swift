import ModelFormat
import XCTest

final class SampleModelTests: XCTestCase {
    func testClassifierValidatesWithTheDocumentedShapes() throws {
        let model = SampleModel.classifier()
        let shapes = try model.validate()
        XCTAssertEqual(shapes["data"], TensorShape(channels: 3, height: 227, width: 227))
        XCTAssertEqual(shapes["conv1"], TensorShape(channels: 8, height: 56, width: 56))  // (227 - 7) / 4 + 1
        XCTAssertEqual(shapes["relu1"], TensorShape(channels: 8, height: 56, width: 56))
        XCTAssertEqual(shapes["pool1"], TensorShape(channels: 8, height: 28, width: 28))  // ceil(53 / 2) + 1
        XCTAssertEqual(shapes["flatten"], TensorShape(channels: 8 * 28 * 28))
        XCTAssertEqual(shapes["fc8"], TensorShape(channels: 8, height: 1, width: 1))
        XCTAssertEqual(shapes["classLabelProbs"], TensorShape(channels: 8))
        XCTAssertEqual(shapes.count, 7)
    }

    func testClassifierContents() throws {
        let model = SampleModel.classifier()
        XCTAssertEqual(model.nodes.map(\.name), ["conv1", "relu1", "pool1", "flatten", "fc8", "prob"])
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["convolution", "activation", "pooling", "flatten", "innerProduct", "softmax"])
        let classifier = try XCTUnwrap(model.classifier)
        XCTAssertEqual(classifier.labels, .strings(SampleModel.ageLabels))
        XCTAssertEqual(classifier.labels.count, 8)
        XCTAssertEqual(classifier.probabilitiesName, "classLabelProbs")
        XCTAssertEqual(classifier.predictedFeatureName, "classLabel")
        let image = try XCTUnwrap(model.inputs.first?.image)
        XCTAssertEqual([image.width, image.height], [227, 227])
        XCTAssertEqual(image.colorSpace, .bgr)
        XCTAssertEqual(image.channelBiases, [-0.41, -0.46, -0.48])
        XCTAssertTrue(image.hasScaler)
        guard case .convolution(let conv) = model.nodes[0].operation else { return XCTFail("conv1 is not a convolution") }
        XCTAssertEqual(conv.weights.count, 8 * 3 * 7 * 7)
        XCTAssertTrue(conv.weights.values.allSatisfy { abs($0) <= 0.1 })
        guard case .innerProduct(let fc) = model.nodes[4].operation else { return XCTFail("fc8 is not an inner product") }
        XCTAssertEqual(fc.weights.count, 8 * 28 * 28 * 8)
        XCTAssertTrue(fc.weights.values.allSatisfy { abs($0) <= 0.02 })
        XCTAssertEqual(model.metadata.userDefined.map(\.key), ["source"])
    }

    func testClassifierIsTheSameOnEveryCall() {
        XCTAssertEqual(SampleModel.classifier(), SampleModel.classifier())
    }

    func testSplitMix64MatchesTheReferenceSequence() {
        // Vigna's splitmix64.c from state 0.
        var generator = SplitMix64(seed: 0)
        XCTAssertEqual((0..<3).map { _ in generator.next() }, [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    func testSplitMix64IsDeterministicForASeed() {
        var a = SplitMix64(seed: 2024), b = SplitMix64(seed: 2024), c = SplitMix64(seed: 2025)
        let first = (0..<100).map { _ in a.next() }
        XCTAssertEqual(first, (0..<100).map { _ in b.next() })
        XCTAssertNotEqual(first, (0..<100).map { _ in c.next() })
        XCTAssertEqual(Set(first).count, 100)

        var x = SplitMix64(seed: 7), y = SplitMix64(seed: 7)
        let floats = (0..<1000).map { _ in x.nextFloat(in: -0.5...0.25) }
        XCTAssertEqual(floats, (0..<1000).map { _ in y.nextFloat(in: -0.5...0.25) })
        XCTAssertTrue(floats.allSatisfy { (-0.5...0.25).contains($0) })
        XCTAssertLessThan(floats.min()!, -0.4)
        XCTAssertGreaterThan(floats.max()!, 0.15)

        // Usable as a RandomNumberGenerator.
        var g1 = SplitMix64(seed: 99), g2 = SplitMix64(seed: 99)
        XCTAssertEqual([1, 2, 3, 4, 5, 6].shuffled(using: &g1), [1, 2, 3, 4, 5, 6].shuffled(using: &g2))
    }
}
