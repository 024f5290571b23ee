import Conversion
import KerasFrontend
import ModelFormat
import XCTest

/// `inspect` converts a Keras file without reading its kernels: the model
/// must be the full conversion's in every respect but the kernels' values,
/// which are not loaded (as after a structure-only read of a model file).
final class KerasStructureTests: XCTestCase {
    func testWithoutKernelsOnlyTheKernelValuesDiffer() throws {
        let path = kerasFixtures.appendingPathComponent("functional_separable/model.h5").path
        let full = try KerasConverter.convert(model: path)
        let summary = try KerasConverter.convert(model: path, readingKernels: false)
        XCTAssertEqual(summary.nodes.map(\.name), full.nodes.map(\.name))
        XCTAssertEqual(summary.inputs.map(\.name), full.inputs.map(\.name))
        XCTAssertEqual(summary.outputs.map(\.name), full.outputs.map(\.name))
        var kernelCount = 0
        for (ours, theirs) in zip(summary.nodes, full.nodes) {
            let (a, b) = (weights(of: ours), weights(of: theirs))
            XCTAssertEqual(a.map(\.count), b.map(\.count), "\(ours.name): weight counts")
            guard let (kernel, reference) = kernels(of: ours, theirs) else {
                XCTAssertEqual(a.map(\.values), b.map(\.values), "\(ours.name): values other than kernels are read")
                continue
            }
            kernelCount += 1
            XCTAssertFalse(kernel.isLoaded, "\(ours.name): the kernel is not read")
            XCTAssertEqual(kernel.count, reference.count, "\(ours.name): the kernel's count")
            XCTAssertTrue(reference.isLoaded, "\(ours.name): the full conversion's kernel")
            XCTAssertFalse(reference.values.allSatisfy { $0 == 0 }, "\(ours.name): the file's kernel")
            XCTAssertEqual(a.dropFirst().map(\.values), b.dropFirst().map(\.values), "\(ours.name): bias read")
        }
        XCTAssertGreaterThan(kernelCount, 2)
    }

    func testUnloadedBytesGiveUnloadedWeightsThroughEveryLayout() {
        let source = FloatBytes(unloadedCount: 2 * 3 * 4 * 5)
        XCTAssertFalse(source.isLoaded)
        XCTAssertEqual(source.count, 4 * 120)
        for weights in [NHWCLayout.convolution(kh: 2, kw: 3, cin: 4, cout: 5, from: source),
                        NHWCLayout.transposed(inputs: 24, outputs: 5, from: source), NHWCLayout.unchanged(from: source)] {
            XCTAssertFalse(weights.isLoaded)
            XCTAssertEqual(weights.count, 120)
        }
        var folded = NHWCLayout.convolution(kh: 2, kw: 3, cin: 4, cout: 5, from: source)
        folded.update { _, values in for index in values.indices { values[index] *= 2 } }
        XCTAssertFalse(folded.isLoaded, "a fold leaves unread values unread")
        XCTAssertTrue(FloatBytes([1, 2]).isLoaded)
    }

    /// The kernels of a convolution or dense layer, ours and the full conversion's.
    private func kernels(of ours: Node, _ theirs: Node) -> (Weights, Weights)? {
        switch (ours.operation, theirs.operation) {
        case (.convolution(let a), .convolution(let b)): (a.weights, b.weights)
        case (.innerProduct(let a), .innerProduct(let b)): (a.weights, b.weights)
        default: nil
        }
    }

    private func weights(of node: Node) -> [Weights] {
        switch node.operation {
        case .convolution(let conv): [conv.weights] + (conv.bias.map { [$0] } ?? [])
        case .innerProduct(let dense): [dense.weights] + (dense.bias.map { [$0] } ?? [])
        case .batchNorm(let norm): [norm.gamma, norm.beta, norm.mean, norm.variance]
        default: []
        }
    }
}
