import CoreMLBackend
import Foundation
import ModelFormat
import Runtime
import TestSupport
import TFLiteFrontend
import XCTest

/// RESIZE_BILINEAR (12 x 10 from 6 x 5) and RESIZE_NEAREST_NEIGHBOR (24 x 30
/// from 12 x 10) between convolutions, Keras's Resizing through
/// TFLiteConverter (make_tflite_fixtures.py, write_resize), and the same
/// file with each option combination; RESIZE_BILINEAR 6 x 5 to 11 x 9
/// (write_resize_fractional): each converted, written, run, and its map
/// within 1e-4 * max(1, |ref|) of LiteRT's.
final class TFLiteResizeTests: XCTestCase {
    let folder = tfliteFixtures.appendingPathComponent("resize")

    /// Both operators with half_pixel_centers (TensorFlow 2's resize).
    func testHalfPixelCenters() throws {
        let model = try check("model")
        let upsamples = model.nodes.compactMap { node -> Upsample? in
            if case .upsample(let upsample) = node.operation { return upsample } else { return nil }
        }
        XCTAssertEqual(upsamples, [Upsample(scale: Size2(2, 2), mode: .bilinear, alignment: .halfPixel), Upsample(scale: Size2(2, 3))])
    }

    /// Bilinear with align_corners, nearest with neither flag.
    func testAlignCorners() throws { try check("align_corners") }

    /// Neither flag on either (TensorFlow 1's grid).
    func testLegacyGrid() throws { try check("legacy") }

    /// RESIZE_BILINEAR's deprecated new_height 7: LiteRT's kernel ignores it, and so does the conversion.
    func testDeprecatedNewHeightIsIgnored() throws { try check("new_height") }

    /// 6x5 -> 11x9 (not whole multiples) with half_pixel_centers and with
    /// align_corners: specification 5's fractional upsample on that grid.
    func testFractionalBilinear() throws {
        for (name, alignment) in [("fractional", Upsample.Alignment.halfPixel), ("fractional_align_corners", .alignCorners)] {
            let model = try check(name, height: 11, width: 9)
            guard case .upsample(let upsample) = model.nodes.first(where: { $0.operation.kindName == "upsample" })?.operation else {
                return XCTFail("\(name): no upsample")
            }
            XCTAssertEqual(upsample.alignment, alignment)
            XCTAssertEqual(upsample.fractionalScale.count, 2)
        }
    }

    func testRefusals() throws {
        let cases = [
            ("nearest_align_corners", "operator 3 (RESIZE_NEAREST_NEIGHBOR) writing "),
            ("nearest_align_corners", "align_corners 'true' is not supported"),
            ("bilinear_both", "operator 1 (RESIZE_BILINEAR) writing "),
            ("bilinear_both", "align_corners and half_pixel_centers together are not supported"),
            ("fractional_legacy", "the size [11, 9] is not a whole multiple of the 6x5 input, and with neither align_corners nor "
                + "half_pixel_centers only whole multiples are supported"),
            ("fractional_nearest", "operator 1 (RESIZE_NEAREST_NEIGHBOR) writing "),
            ("fractional_nearest", "the size [11, 9] is not a whole multiple of the 6x5 input; resizing to whole multiples is supported"),
        ]
        for (name, expected) in cases {
            XCTAssertThrowsError(try TFLiteConverter.convert(model: folder.appendingPathComponent("\(name).tflite").path)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(name): \(error)")
            }
        }
    }

    /// Hostile sizes patched into the bilinear resize's size constant
    /// (int32 12, 10 in the file): each refused by name, nothing sized by them.
    func testHostileSizes() throws {
        let source = folder.appendingPathComponent("model.tflite").path
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let pattern: [UInt8] = [12, 0, 0, 0, 10, 0, 0, 0]
        // The first: the constant's buffer (byte 1004) precedes the tensor shapes [1, 12, 10, 4] that hold the same bytes;
        // the error below names the size, so a wrong guess fails.
        let at = try XCTUnwrap((0...(bytes.count - 8)).first { Array(bytes[$0..<$0 + 8]) == pattern })
        let outOfRange = "is not two sizes in 1...\(ShapeInference.maximumSize)"
        let shrinks = "is not a whole multiple of the 6x5 input and shrinks it; Core ML's fractional upsample only enlarges"
        let cases: [([Int32], String)] = [([0, 0], outOfRange), ([-1, 10], outOfRange), ([12, Int32.max], outOfRange), ([Int32.min, 10], outOfRange),
                                          ([3, 7], shrinks)]
        for (index, (size, expected)) in cases.enumerated() {
            var changed = bytes
            for (offset, value) in size.enumerated() {
                withUnsafeBytes(of: Int32(value).littleEndian) { changed.replaceSubrange(at + 4 * offset..<at + 4 * offset + 4, with: $0) }
            }
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tflite_resize_\(getpid())_\(index).tflite").path
            try Data(changed).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            XCTAssertThrowsError(try TFLiteConverter.convert(model: path)) { error in
                XCTAssertTrue("\(error)".contains("operator 1 (RESIZE_BILINEAR) writing ") && "\(error)".contains("the size \(size) \(expected)"),
                              "\(size): \(error)")
            }
        }
    }

    @discardableResult
    func check(_ name: String, height: Int = 24, width: Int = 30, line: UInt = #line) throws -> Model {
        let model = try TFLiteConverter.convert(model: folder.appendingPathComponent("\(name).tflite").path)
        let path = checkDirectory.appendingPathComponent("tflite_resize_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        let network = try Network(contentsOf: path)
        let input = try XCTUnwrap(network.model.inputs.first?.name), output = try XCTUnwrap(network.model.outputs.first?.name)
        let x = chw(try NumpyFile.read(path: folder.appendingPathComponent("input.npy").path).values, 6, 5, 3)
        let prediction = try network.predict([input: .array(Tensor(shape: TensorShape([3, 6, 5]), values: x))])
        let ours = try XCTUnwrap(prediction.outputs[output]?.values, line: line)
        let reference = chw(try NumpyFile.read(path: folder.appendingPathComponent("\(name)_output.npy").path).values, height, width, 2)
        XCTAssertEqual(ours.count, reference.count, line: line)
        if let worst = worstMismatch(ours, reference) {
            XCTFail("\(name): value \(worst.index) is \(worst.ours), LiteRT gives \(worst.reference)", line: line)
        }
        return model
    }
}
