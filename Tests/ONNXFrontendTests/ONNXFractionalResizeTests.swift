import ModelFormat
import ONNXFrontend
import XCTest

/// Resize by fractional factors and to sizes that are not whole multiples
/// (scripts/fixtures/make_onnx_op_fixtures.py, against onnxruntime).
extension ONNXOpTests {
    /// Linear, half_pixel, pytorch_half_pixel and align_corners, by scales
    /// and to sizes, at opsets 11, 13 and 18: one fractional upsample each.
    func testLinearResizeByFractionalFactors() throws {
        for name in ["resize_linear_half_pixel_scales_opset13", "resize_linear_half_pixel_sizes_opset13", "resize_linear_pytorch_half_pixel_sizes_opset13",
                     "resize_linear_align_corners_sizes_opset13", "resize_linear_align_corners_scales_opset11", "resize_linear_axes_opset18",
                     "resize_linear_one_axis_whole_opset13"] {
            let model = try check(name)
            guard model.nodes.count == 1, case .upsample(let upsample) = model.nodes[0].operation else {
                XCTFail("\(name): \(model.nodes.map(\.operation.kindName))")
                continue
            }
            XCTAssertEqual(upsample.fractionalScale.count, 2, name)
            XCTAssertEqual(upsample.mode, .bilinear, name)
        }
    }

    /// What no Core ML layer computes, and hostile scales and sizes: one
    /// error each, naming the node and what differs.
    func testFractionalResizeRefusals() throws {
        let prefix = "node 'y' (Resize): "
        for (name, clause) in [
            ("resize_nearest_align_corners_sizes_opset13", "mode nearest with coordinate_transformation_mode align_corners with nearest_mode round_prefer_floor picks other pixels than repeating each one 3 times and taking one in 2, resizing 4x4 to 7x6"),
            ("resize_nearest_large_repeat_opset13", "mode nearest resizing 17x17 to 18x18 (sizes [18, 18], not whole factors) would repeat each pixel 18 times (306 long, over 16 times the larger size)"),
            ("resize_linear_asymmetric_fractional_opset13", "mode linear with coordinate_transformation_mode asymmetric is not supported resizing 4x4 to 6x6"),
            ("resize_linear_shrink_opset13", "mode linear resizing 4x6 to 2x3 (scales [0.5, 0.5], not whole factors) shrinks the map"),
            ("resize_linear_scales_not_whole_opset13", "scales [1.5, 1.5] do not give whole sizes (3 x 1.5 = 4.5)"),
            ("resize_cubic_fractional_opset13", "mode cubic (with coordinate_transformation_mode half_pixel) is not supported resizing 4x4 to 6x6"),
            ("resize_scales_zero_opset13", "scales [1.0, 1.0, 0.0, 2.0] are not positive finite factors"),
            ("resize_scales_tiny_opset13", "only resizing H and W to sizes of at least 1 is supported, not [1, 2, 4, 4] to [1, 2, 0, 8]"),
            ("resize_sizes_2p63_opset13", "the sizes holds 9.223372036854776e+18, not an integer of a usable size"),
        ] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(prefix + clause), "\(name): \(error)") }
        }
    }

    /// Nearest resizing by fractional factors and shrinking, in several
    /// coordinate modes and roundings, Resize at opsets 13 and 18 and
    /// Upsample at 9: an upsample by whole factors and strided slices
    /// (align_corners at 4 to 7, whose picks are not such, is refused).
    func testNearestResizeByFractionalFactors() throws {
        for name in ["resize_nearest_fractional_opset13", "resize_nearest_asymmetric_floor_scales_opset13", "resize_nearest_half_pixel_sizes_opset13",
                     "resize_nearest_shrink_opset13", "resize_nearest_round_prefer_ceil_sizes_opset13",
                     "resize_nearest_axes_opset18", "upsample_nearest_fractional_opset9"] {
            let kinds = try check(name).nodes.map(\.operation.kindName)
            XCTAssertTrue(Set(kinds).isSubset(of: ["upsample", "slice"]) && kinds.contains("slice"), "\(name): \(kinds)")
        }
    }
}
