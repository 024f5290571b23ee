import CaffeFrontend
import Conversion
import Foundation
import ModelFormat
import Runtime
import SweepSupport
import TestSupport
import XCTest

/// The MobileNet-SSD-shaped detector (SSDDetectorTests' fixture: its rows
/// and boxes checked there against OpenCV) as an ML Program package: its
/// decoding (the priors and variances as constants, slices, exp, mul, add)
/// program operations of a map model; predicted as the NeuralNetwork file
/// on the fixture's three inputs (`DetectorProgramCheck`).
final class SSDProgramTests: XCTestCase {
    func testTheDetectorAsAProgramPredictsAsItsNeuralNetworkFile() throws {
        let folder = caffeFixtures.appendingPathComponent("ssd")
        var options = ConversionOptions()
        options.ignoresCandidateCap = true
        let model = try CaffeConverter.convert(deploy: folder.appendingPathComponent("deploy.prototxt").path,
                                               weights: folder.appendingPathComponent("weights.caffemodel").path, options: options)
        let inputs = try (0..<3).map { index -> [String: InputValue] in
            let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("detect_\(index)_input.npy").path)
            return ["data": .array(Tensor(shape: TensorShape(shape), values: values))]
        }
        let measured = try DetectorProgramCheck.check(model, inputs: inputs, name: "caffe_ssd")
        print("SSDProgramTests: float32 within \(measured.float32), float16 \(measured.float16) (bound \(measured.float16Bound)), \(measured.overflowed) values beyond float16's range")
    }

    /// SSDPerClassTests' detectors: rows repeated once per class (a 1x1
    /// convolution, permutes and reshapes of maps) and keep_top_k's cap on
    /// the boxes kept.
    func testPerClassRowsAndTheCapAsProgramsPredictAsTheirNeuralNetworkFiles() throws {
        let folder = caffeFixtures.appendingPathComponent("ssd")
        for (name, rowsPerClass) in [("per_class", true), ("keep_top_k", false)] {
            var options = ConversionOptions()
            options.ignoresCandidateCap = true
            options.detectorRowsPerClass = rowsPerClass
            let model = try CaffeConverter.convert(deploy: folder.appendingPathComponent("deploy_\(name).prototxt").path,
                                                   weights: folder.appendingPathComponent("weights.caffemodel").path, options: options)
            XCTAssertEqual(model.detector?.rowsPerClass, rowsPerClass)
            let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("\(name)_input.npy").path)
            let measured = try DetectorProgramCheck.check(model, inputs: [["data": .array(Tensor(shape: TensorShape(shape), values: values))]],
                                                          name: "caffe_ssd_\(name)")
            print("SSDProgramTests \(name): float32 within \(measured.float32), float16 \(measured.float16) (bound \(measured.float16Bound))")
        }
    }
}
