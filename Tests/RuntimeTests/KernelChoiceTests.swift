import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
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
}
