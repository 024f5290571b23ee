import Conversion
import DarknetFrontend
import Foundation
import ImageFiles
import Images
import ModelFormat
import Runtime
import SweepSupport
import TestSupport
import XCTest

/// Darknet's detectors (DarknetDetectorTests' YOLOv2 [region] and
/// DarknetYOLOTests' [yolo] heads, with and without new_coords: checked
/// there against OpenCV and numpy) as ML Program packages: the decoding
/// (grid constants, slices, sigmoid, exp, softmax, concat) program
/// operations of a map model; predicted as the NeuralNetwork file on the
/// fixtures' pictures (`DetectorProgramCheck`).
final class DarknetProgramTests: XCTestCase {
    func testDetectorsAsProgramsPredictAsTheirNeuralNetworkFiles() throws {
        for name in ["detector", "yolo_detector", "yolo_new_coords"] {
            let folder = darknetFixtures.appendingPathComponent(name)
            let model = try DarknetConverter.convert(config: folder.appendingPathComponent("model.cfg").path,
                                                     weights: folder.appendingPathComponent("model.weights").path,
                                                     options: ConversionOptions(), imageInput: true, region: .detector)
            let pictures = (0..<3).map { folder.appendingPathComponent("detect_\($0).png").path }.filter { FileManager.default.fileExists(atPath: $0) }
            let inputs: [[String: InputValue]]
            if pictures.isEmpty {
                // yolo_new_coords has no pictures: its [C, H, W] input values as the image's pixels.
                let (shape, values) = try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path)
                let pixels = (0..<(shape[1] * shape[2])).flatMap { at in (0..<shape[0]).map { UInt8(clamping: Int((values[$0 * shape[1] * shape[2] + at] * 255).rounded())) } }
                inputs = [["image": .image(Image(width: shape[2], height: shape[1], channels: shape[0], pixels: pixels))]]
            } else {
                inputs = try pictures.map { ["image": .image(try ImageFile.read(path: $0))] }
            }
            let measured = try DetectorProgramCheck.check(model, inputs: inputs, name: "darknet_\(name)")
            print("DarknetProgramTests \(name): float32 within \(measured.float32), float16 \(measured.float16) (bound \(measured.float16Bound)), \(measured.overflowed) values beyond float16's range")
        }
    }
}
