import Foundation
import TestSupport
import XCTest

/// A 0 that Core ML reads as "unset", end to end (issue 30): Caffe's Power
/// with scale 0 is shift^power, as OpenCV dnn computes it
/// (Tests/Fixtures/coreml/power_scale0, scripts/fixtures/make_proto_zero_fixtures.py).
/// It was written as a unary power of scale 0, which Core ML and our
/// reader take as scale 1: (shift + x)^power.
final class UnsetZeroCommandTests: XCTestCase {
    let folder = repositoryRoot.appendingPathComponent("Tests/Fixtures/coreml/power_scale0")

    func testCaffePowerWithScaleZeroComputesWhatOpenCVComputes() throws {
        let work = try temporaryFolder()
        let model = work.appendingPathComponent("Power.mlmodel").path
        let converted = try ProgramRunner.run("coreml-convert", ["caffe", folder.appendingPathComponent("deploy.prototxt").path,
                                                                 folder.appendingPathComponent("weights.caffemodel").path, "-o", model])
        XCTAssertEqual(converted.status, 0, converted.standardError)
        let out = work.appendingPathComponent("out")
        let predicted = try ProgramRunner.run("coreml-predict", [model, "--input", "data=" + folder.appendingPathComponent("input.npy").path,
                                                                 "--output-npy", out.path])
        XCTAssertEqual(predicted.status, 0, predicted.standardError)
        for name in ["constant", "shifted"] {
            let ours = try readFloat32Npy(out.appendingPathComponent("\(name).npy"))
            let reference = try readFloat32Npy(folder.appendingPathComponent("expected_\(name).npy"))
            XCTAssertEqual(ours.count, reference.count, name)
            for (a, b) in zip(ours, reference) { XCTAssertLessThanOrEqual(abs(a - b), 1e-4 * max(1, abs(b)), name) }
        }
        XCTAssertEqual(try readFloat32Npy(folder.appendingPathComponent("expected_constant.npy")).first, 9, "3^2")
    }
}
