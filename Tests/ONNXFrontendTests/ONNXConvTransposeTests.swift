import ModelFormat
import ONNXFrontend
import XCTest

/// ConvTranspose's output_padding, groups, dilations and output_shape, and
/// Max and Min of several inputs (scripts/fixtures/make_onnx_op_fixtures.py,
/// against onnxruntime).
extension ONNXOpTests {
    /// Each converts to one deconvolution with explicit padding and no
    /// dilation or output shape (the form Core ML's specification states
    /// plainly), and matches onnxruntime.
    func testConvTransposeOutputPaddingGroupsDilationsAndOutputShape() throws {
        for name in ["convtranspose_output_padding_opset13", "convtranspose_output_padding_past_pads_opset13", "convtranspose_group_opset13",
                     "convtranspose_depthwise_opset13", "convtranspose_dilations_opset13", "convtranspose_dilations_output_padding_opset13",
                     "convtranspose_output_shape_opset13", "convtranspose_output_shape_same_upper_opset13",
                     "convtranspose_same_upper_output_padding_opset13", "convtranspose_same_lower_output_padding_opset13"] {
            let model = try check(name)
            let convolutions = model.nodes.compactMap { node -> Convolution? in
                if case .convolution(let conv) = node.operation { return conv } else { return nil }
            }
            XCTAssertEqual(convolutions.count, 1, name)
            for conv in convolutions {
                XCTAssertTrue(conv.isDeconvolution, name)
                XCTAssertEqual(conv.dilation, Size2(square: 1), name)
                XCTAssertEqual(conv.outputShape, [], name)
            }
        }
    }

    /// Values no transposed convolution takes, or that would need a kernel
    /// past any reasonable size: one error each, naming the node.
    func testConvTransposeRefusals() throws {
        for (name, clause) in [
            ("convtranspose_output_padding_at_stride_opset13", "node 'y' (ConvTranspose): output_padding [2, 0] must be two values each below its axis's stride [2, 2]"),
            ("convtranspose_output_padding_negative_opset13", "node 'y' (ConvTranspose): output_padding [0, -1] must be two values each below its axis's stride [2, 2]"),
            ("convtranspose_output_shape_2p63_opset13", "node 'y' (ConvTranspose): output_shape [9223372036854775807, 8] must be two sizes [H, W] from 1 to 1048576"),
            ("convtranspose_output_shape_zero_opset13", "node 'y' (ConvTranspose): output_shape [0, 8] must be two sizes [H, W] from 1 to 1048576"),
            ("convtranspose_group_not_dividing_opset13", "node 'y' (ConvTranspose): group 3 does not divide 4 input channels"),
            ("convtranspose_pads_crop_all_opset13", "node 'y' (ConvTranspose): pads [2, 0, 2, 0] crop the whole output of axis 2 (4 long)"),
            ("convtranspose_dilations_huge_kernel_opset13", "node 'y' (ConvTranspose): dilations or output size need a 131073x131073 kernel, more than 67108864 weights"),
        ] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }

    /// Max and Min of one, three and four inputs, broadcast on maps, on
    /// tensors of one shape; a constant among three is refused.
    func testMaxAndMinOfSeveralInputs() throws {
        for name in ["max_min_several_map_opset13", "max_min_several_tensor_opset13"] {
            let kinds = try check(name).nodes.map(\.operation.kindName)
            XCTAssertTrue(kinds.contains("maximum") && kinds.contains("minimum"), "\(name): \(kinds)")
        }
        XCTAssertThrowsError(try convert("max_with_constant_opset13")) { error in
            XCTAssertTrue("\(error)".contains("node 'y' (Max): a constant operand (input 2) is supported only in a Max of two inputs"), "\(error)")
        }
    }
}
