import Foundation
@testable import ONNXFrontend
import SweepSupport
import TestSupport
import XCTest

/// The ONNX attribute sweep (scripts/fixtures/make_onnx_sweep.py): every
/// case converted and equal to onnxruntime's output, or refused naming the
/// attribute; and every op the converter takes has a ledger.
final class AttributeSweepTests: XCTestCase {
    func testEveryOpHasALedger() {
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXLedgers.known), [])
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXOpTable.mappings.keys), [])
        XCTAssertEqual(ONNXLedgers.ledgers.missing(for: ONNXFolding.foldable), [])
    }

    /// Every honoured attribute of every op has a case in the sweep.
    func testEveryHonouredAttributeHasASweepCase() throws {
        XCTAssertEqual(try unsweptHonouredAttributes("onnx", ledgers: ONNXLedgers.ledgers, types: ONNXLedgers.known), [])
    }

    /// Cases that were converted wrongly before issue 30, and how each ends
    /// now: converted (nil) or refused with this clause.
    static let regressions: [String: String?] = [
        "resize_nearest_asymmetric_round_prefer_ceil_x2": "nearest_mode 'round_prefer_ceil' with coordinate_transformation_mode 'asymmetric' picks other pixels",
        "resize_nearest_asymmetric_ceil_x2": "nearest_mode 'ceil' with coordinate_transformation_mode 'asymmetric' picks other pixels",
        "resize_nearest_half_pixel_floor_x2": "nearest_mode 'floor' with coordinate_transformation_mode 'half_pixel' picks other pixels",
        "resize_nearest_align_corners_round_prefer_floor_x2": nil,
        "resize_nearest_align_corners_round_prefer_floor_x3": "coordinate_transformation_mode 'align_corners' with nearest_mode 'round_prefer_floor' picks other pixels",
        "resize_nearest_asymmetric_round_prefer_floor_x3": "coordinate_transformation_mode 'asymmetric' with nearest_mode 'round_prefer_floor' picks other pixels",
        "resize_nearest_asymmetric_floor_x3": nil,
        "resize_nearest_tf_half_pixel_for_nn_round_prefer_floor_x2": "coordinate_transformation_mode 'tf_half_pixel_for_nn' with nearest_mode 'round_prefer_floor'",
        "resize_nearest_tf_half_pixel_for_nn_floor_x3": nil,
        "resize_tf_crop_and_resize": "coordinate_transformation_mode tf_crop_and_resize is not supported",
        "resize_opset11_asymmetric_round_prefer_ceil": "nearest_mode 'round_prefer_ceil'",
        "cast_to_bool": nil,
        "cast_to_float16": "to float16 is not supported",
        "cast_to_bfloat16": "to bfloat16 is not supported",
        "cast_to_int64_inf": "to int64 of inf, which int64 cannot hold",
        "gemm_alpha_3ep38": "alpha 3e+38 times B overflows float32",
        "gemm_alpha_nan": "alpha nan is not a finite number",
        "leakyrelu_alpha_nan": "alpha nan is not a finite number",
        "batchnorm_training_mode_1": "training_mode '1' is not supported",
        "reducemean_opset18_noop_with_empty_axes": "noop_with_empty_axes '1' is not supported",
        "resize_keep_aspect_ratio_policy_not_larger": "keep_aspect_ratio_policy 'not_larger' is not supported",
        "resize_axes_2_3": nil,
        "maxpool_ceil_mode_1_k1s2_even": nil,
        "averagepool_ceil_mode_1_k1s2_even": nil,
        // The batch axis squeezed away: the model converts on tensors (it was refused while maps were the only choice).
        "squeeze_opset11_axes_0": nil,
        "seq_flatten_axis_1": nil,
        "dropout_opset13_training_mode_true_ratio_0": "a training_mode input that is not a constant false",
    ]

    func testSweep() throws {
        let results = try runAttributeSweep("onnx") { folder, testCase in
            try ONNXConverter.convert(model: folder.appendingPathComponent(testCase.files[0]).path)
        }
        for (name, expected) in Self.regressions {
            guard let result = results.first(where: { $0.testCase.name == name }) else { XCTFail("\(name): no such case"); continue }
            switch (result.outcome, expected) {
            case (.honoured, nil): break
            case (.refused(let message), let clause?): XCTAssertTrue(message.contains(clause), "\(name): \(message)")
            default: XCTFail("\(name): \(result.outcome), expected \(expected.map { "refused: \($0)" } ?? "converted")")
            }
        }
    }
}

/// The same sweep written as ML Program packages (issue 36), at float32
/// and float16, against the same references (`checkProgramSweep`): on
/// 2026-12-07 all 674 cases the NeuralNetwork sweep honours computed as the
/// framework does (scripts/verify/mlprogram_sweep.sh checks the packages).
final class ProgramSweepTests: XCTestCase {
    func testSweepAsPrograms() throws {
        try checkProgramSweep("onnx", honoured: 674, notYetWritten: 0) { folder, testCase in
            try ONNXConverter.convert(model: folder.appendingPathComponent(testCase.files[0]).path)
        }
    }
}
