import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import XCTest

/// The two kernel sets compute the same: every runtime fixture (OpenCV,
/// TensorFlow or numpy references) passes on the generic kernels too (the
/// other parity tests run the default, oneDNN's convolutions), and the
/// default really runs oneDNN's convolutions on this machine (scripts/bootstrap
/// installs it), so that those tests prove its kernels.
final class KernelChoiceTests: XCTestCase {
    func testEveryFixturePassesOnTheGenericKernels() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: runtimeFixtures.path).filter {
            FileManager.default.fileExists(atPath: runtimeFixtures.appendingPathComponent("\($0)/model.mlmodel").path)
        }.sorted()
        XCTAssertGreaterThan(names.count, 80)
        for name in names { try checkParity(name, kernels: .generic) }
    }

    func testTheDefaultRunsOneDNNsConvolutions() throws {
        XCTAssertTrue(CPUKernels.convolutions.hasPrefix("oneDNN 2."), CPUKernels.convolutions)
        let model = try CoreMLReader.read(from: runtimeFixtures.appendingPathComponent("chain_caffe/model.mlmodel").path).model
        let fast = try Network(model).kernelNames, generic = try Network(model, kernels: .generic).kernelNames
        XCTAssertTrue(fast.contains { $0.step.hasPrefix("conv") && $0.kernel.hasPrefix("oneDNN ") }, "\(fast)")
        XCTAssertFalse(generic.contains { $0.kernel.hasPrefix("oneDNN") }, "\(generic)")
    }

    /// A network given a model of its own (as Network(contentsOf:) reads
    /// one) lets go of the weights oneDNN copied: the model holds them
    /// unloaded, and the outputs are still OpenCV's.
    func testAPrivateModelLetsTheCopiedWeightsGo() throws {
        let folder = runtimeFixtures.appendingPathComponent("chain_caffe")
        let model = try CoreMLReader.read(from: folder.appendingPathComponent("model.mlmodel").path).model
        let network = try Network(model, kernels: .fastest, modelIsPrivate: true)
        let weights = network.model.nodes.compactMap { node -> Weights? in
            if case .convolution(let conv) = node.operation { conv.weights } else { nil }
        }
        XCTAssertFalse(weights.isEmpty)
        XCTAssertTrue(weights.allSatisfy { !$0.isLoaded })
        let (_, x) = try NumpyFile.read(path: folder.appendingPathComponent("input_x.npy").path)
        let input = try XCTUnwrap(network.model.inputs.first)
        let prediction = try network.predict([input.name: .array(Tensor(shape: network.shapes[input.name]!, values: x))])
        let reference = try NumpyFile.read(path: folder.appendingPathComponent("output_prob.npy").path).values
        let ours = try XCTUnwrap(prediction.outputs["prob"]?.values)
        XCTAssertNil(worstMismatch(ours, reference))
    }
}
