import Foundation
import ONNXFrontend
import TestSupport
import XCTest

/// Files the reader must refuse, each with one error saying why
/// (scripts/fixtures/make_onnx_op_fixtures.py writes them): external data
/// that leads out of the model's folder (a parent path, an absolute path,
/// a symbolic link), offsets and lengths past the file, giant dimensions,
/// short payloads, an unsupported opset, a dangling name, a huge reshape,
/// a cut file.
final class ONNXHostileTests: XCTestCase {
    static let cases: [(file: String, message: String)] = [
        ("escape_parent", "external data location '../ops/external_data.bin' is not a file in the model's folder"),
        ("escape_absolute", "external data location '/etc/hostname' is not a file in the model's folder"),
        ("escape_symlink", "external data location 'outside_link.bin' leads outside the model's folder"),
        ("offset_past_end", "external data at offset 1099511627776, 12 bytes, runs past the end of data.bin (48 bytes)"),
        ("length_past_end", "external data at offset 40, 12 bytes, runs past the end of data.bin (48 bytes)"),
        ("missing_file", "no_such.bin: No such file or directory"),
        ("offset_not_a_number", "external data offset '-5' is not a byte count"),
        ("giant_dims", "shape [1099511627776, 3, 1, 1] is invalid or too large"),
        ("raw_data_too_short", "shape [1, 3, 1, 1] needs 12 bytes, raw_data holds 8"),
        ("conv_group_2p63", "weights [1, 3, 1, 1] in 9223372036854775807 groups do not fit 3 input channels"),
        ("opset_8", "opset 8 is not supported (opsets 9 to 21)"),
        ("reads_unknown_name", "node 'y' (Relu): reads 'nowhere', which no earlier node or initializer gives"),
        ("reshape_huge", "node 'y' (Reshape): the shape holds 4.611686018427388e+18, not an integer of a usable size"),
        ("truncated", "byte 20: length 27436 runs past the end of its message"),
        // Attribute values at and past the edges of their domains (scripts/fixtures/make_onnx_sweep.py).
        ("batch_2", "input 'x' has batch 2 ([2, 2, 5, 5]); only batch 1 is supported (the converted model takes one input at a time)"),
        ("cast_int64_2p63", "node 'k' (Cast): to int64 of 9.223372036854776e+18, which int64 cannot hold, is not supported"),
        ("clip_min_above_max", "node 'y' (Clip): min 1.0 is above max -1.0"),
        ("clip_min_nan", "node 'y' (Clip): min nan is not a finite number"),
        ("concat_axis_2p63", "node 'y' (Concat): axis -9223372036854775805 is outside the input 1x3x4"),
        ("conv_pads_negative", "node 'y' (Conv): pads [-1, -1, -1, -1] must be four sizes"),
        ("conv_strides_2p63", "node 'y' (Conv): strides [9223372036854775807, 1] must be two positive sizes"),
        ("convtranspose_strides_2p63", "node 'y' (ConvTranspose): strides [9223372036854775807, 9223372036854775807] must be two positive sizes"),
        ("flatten_axis_2p63", "node 'y' (Flatten): axis -9223372036854775808 is out of range for rank 4"),
        ("gather_axis_2p63", "node 'y' (Gather): axis 9223372036854775807 is out of range"),
        ("leakyrelu_alpha_int", "node 'y' (LeakyRelu): alpha has type int, not float"),
        ("matmul_empty_inner_2p31", "node 'c' (MatMul): folding [2147483648, 0] x [0, 2147483648] is too much work"),
        ("logsoftmax_axis_2p63", "node 'y' (LogSoftmax): axis -9223372036854775808 is outside the input 1x3x4"),
        ("maxpool_kernel_2p63", "node 'y' (MaxPool): kernel_shape [9223372036854775807, 9223372036854775807] must be two positive sizes"),
        ("pad_2p62", "node 'y' (Pad): the pads holds 4.611686018427388e+18, not an integer of a usable size"),
        ("range_huge", "node 'k' (Range): makes inf values, too many"),
        ("range_start_vector", "node 'k' (Range): start has shape [2]; it must be a scalar"),
        ("range_count_minus_1e30", "node 'y' (Add): adding a constant of shape [0] is not supported"),
        ("resize_scales_inf", "node 'y' (Resize): scales [1.0, 1.0, inf, 2.0] are not positive finite factors"),
        ("resize_scales_nan", "node 'y' (Resize): scales [1.0, 1.0, nan, 2.0] are not positive finite factors"),
        ("resize_sizes_negative", "node 'y' (Resize): sizes [1, 2, -10, 10] are not positive sizes"),
        ("softmax_axis_2p63", "node 'y' (Softmax): axis 9223372036854775807 is outside the input 1x3x4"),
        ("squeeze_axes_2p63", "node 'y' (Squeeze): axes [9223372036854775807] are out of range for rank 4"),
        ("squeeze_axes_not_1", "node 'y' (Squeeze): axes [1] of [1, 3, 1, 1] are not all of size 1"),
        ("squeeze_axes_out_of_range", "node 'y' (Squeeze): axes [7] are out of range for rank 4"),
        ("transpose_perm_2p63", "node 'y' (Transpose): axes [0, 9223372036854775807, 1] are not a permutation"),
        ("unsqueeze_axes_2p63", "node 'y' (Unsqueeze): axis -9223372036854775805 is out of range"),
        ("made_total", "node 'k' (Add): folding would make 16777216 more values: the constants made so far hold 33554432, and at most 33554432 in all"),
        ("upsample_scales_huge", "node 'y' (Upsample): scales [1.0, 1.0, 1.0000000150474662e+30, 1.0000000150474662e+30] are not positive finite factors"),
    ]

    func testEachIsRefusedWithItsReason() throws {
        let folder = onnxFixtures.appendingPathComponent("hostile")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent("outside_link.bin").path),
                       "../ops/external_data.bin")
        for (file, message) in Self.cases {
            let path = folder.appendingPathComponent("\(file).onnx").path
            if Self.runAsCommand.contains(file) {
                try assertCommandRefuses(path, message)
                continue
            }
            XCTAssertThrowsError(try ONNXConverter.convert(model: path), file) { error in
                XCTAssertTrue("\(error)".hasPrefix(path + ": "), "\(file): \(error)")
                XCTAssertTrue("\(error)".contains(message), "\(file): \(error)")
                XCTAssertFalse("\(error)".contains("\n"), "\(file): \(error)")
            }
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".onnx") }
        XCTAssertEqual(files.count, Self.cases.count, "every hostile file has its case")
    }

    /// Cases that make hundreds of MB before they are refused: run by
    /// coreml-convert in a child process, so that this process's peak
    /// memory stays low (a child spawned later starts its peak count at
    /// it: SparseFileBoundedReadTests measures children).
    static let runAsCommand: Set<String> = ["made_total"]

    func assertCommandRefuses(_ path: String, _ message: String) throws {
        let (status, text) = try runConvert(["onnx", path, "-o", try temporaryFolder().appendingPathComponent("out.mlmodel").path])
        XCTAssertEqual(status, 1, text)
        XCTAssertTrue(text.hasPrefix("error: \(path): ") && text.contains(message), text)
        XCTAssertEqual(text.filter { $0 == "\n" }.count, 1, text)
    }

    /// `--input` with a batch other than 1 says so, instead of asking for the sizes it was given.
    func testInputWithABatchOtherThanOne() throws {
        let path = onnxFixtures.appendingPathComponent("squeezenet_opset13/model.onnx").path
        XCTAssertThrowsError(try ONNXConverter.convert(model: path, inputs: [ONNXConverter.InputShape(name: "input", shape: [2, 3, 32, 32])])) { error in
            XCTAssertEqual("\(error)", "inputShapes input: batch 2 is not supported; the converted model takes one input at a time (batch 1: inputShapes input=1,3,32,32)")
        }
    }
}
