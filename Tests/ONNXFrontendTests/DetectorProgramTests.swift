import Conversion
import Foundation
import Images
import ModelFormat
import ONNXFrontend
import Runtime
import SweepSupport
import TestSupport
import XCTest

/// The YOLOv5 and YOLOv8 exports (DetectorOutputTests' fixtures: their
/// rows checked there against onnxruntime) as ML Program packages: a
/// pipeline holding the program, whose image input is a tensor model's,
/// its decoding (slices, the grid and stride constants, mul, add, concat,
/// transpose) program operations; predicted as the NeuralNetwork file
/// (`DetectorProgramCheck`).
final class DetectorProgramTests: XCTestCase {
    func testExportsAsProgramsPredictAsTheirNeuralNetworkFiles() throws {
        for (layout, rowsPerClass) in DetectorOutputLayout.allCases.flatMap({ layout in [(layout, false), (layout, true)] }) {
            let folder = onnxFixtures.appendingPathComponent("\(layout.rawValue)_detector")
            var options = ConversionOptions()
            options.detectorOutput = layout
            options.classLabels = .strings(["cat", "dog", "bird"])
            // Rows once per class: the tensor form (a constant [1, 1, C, K] multiplied in).
            options.detectorRowsPerClass = rowsPerClass
            let model = try ONNXConverter.convert(model: folder.appendingPathComponent("model.onnx").path, options: options)
            XCTAssertTrue(model.hasTensorInputs || model.inputs.first?.image?.asTensor == true, "\(layout): a tensor model")
            let pixels = try NumpyFile.read(path: folder.appendingPathComponent("pixels.npy").path)
            let picture = Image(width: 64, height: 64, channels: 3, pixels: pixels.values.map { UInt8($0) })
            let measured = try DetectorProgramCheck.check(model, inputs: [[model.inputs[0].name: .image(picture)]], name: "onnx_\(layout.rawValue)\(rowsPerClass ? "_per_class" : "")")
            print("DetectorProgramTests \(layout) rowsPerClass \(rowsPerClass): float32 within \(measured.float32), float16 \(measured.float16) (bound \(measured.float16Bound)), \(measured.overflowed) values beyond float16's range")
        }
    }
}
