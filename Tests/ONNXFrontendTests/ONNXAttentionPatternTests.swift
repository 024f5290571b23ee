import ModelFormat
import ONNXFrontend
import XCTest

/// The tensor patterns of torchvision's Swin and ViT exports (fixtures by
/// scripts/fixtures/make_onnx_op_fixtures.py's attention_patterns, with
/// onnxruntime's output), checked as `ONNXOpTests.check` does.
extension ONNXOpTests {
    /// Expand of a computed tensor to a larger rank, and of a [1, C, 1, W]
    /// map along H: one multiply by a constant of ones holding only the
    /// sizes broadcast along ([2, 1, 1, 6], not the output's 48 values).
    func testExpandOfComputedTensors() throws {
        let model = try check("expand_tensor_opset13")
        let ones = try XCTUnwrap(model.nodes.lazy.compactMap { $0.operation.definition as? Constant }.first)
        XCTAssertEqual(ones.shape, [2, 1, 1, 6])
        try check("expand_map_opset13")
    }

    /// A shifted-window mask made of constants only (ConstantOfShape,
    /// ScatterND, Equal, Not, Less, Where) folds: one constant added.
    func testAttentionMaskFromConstantsFolds() throws {
        let model = try check("mask_folded_opset16")
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["constant", "add"])
    }

    /// Several indices along the last axis (runs, a repeat, out of order),
    /// a 2-D index list with a negative index along axis 1, negative
    /// indices along axis -1.
    func testGatherOfSeveralIndices() throws {
        try check("gather_several_opset13")
    }

    /// Attention's products (q k^T, scores v, an output transposed) and
    /// the matrix forms with a constant operand and operands to transpose.
    func testEinsumMatrixProducts() throws {
        let model = try check("einsum_attention_opset13")
        XCTAssertEqual(model.nodes.filter { $0.operation.kindName == "matmul" }.count, 3)
        try check("einsum_forms_opset13")
    }

    /// Constant padding of axes other than H and W (Swin pads [1, H, W, C]
    /// to whole windows): constant blocks joined along each padded axis.
    func testPadOfATensorAlongAnyAxis() throws {
        let model = try check("pad_tensor_opset13")
        XCTAssertEqual(model.nodes.filter { ($0.operation.definition as? Concat).map { $0.axis != Concat.channelAxis } ?? false }.count, 2)
    }

    /// Hostile sizes, indices and equations: one clear error each.
    func testHostileTensorPatternsAreRefused() throws {
        let cases = [
            ("expand_negative_opset13", "node 'y' (Expand): shape [1, -1, 6] must hold 1 to 5 sizes, each 1 to 2147483648"),
            ("expand_2p63_opset13", "node 'y' (Expand): the shape holds 9.223372036854776e+18, not an integer of a usable size"),
            ("gather_out_of_range_opset13", "node 'y' (Gather): index 6 is out of range -6..<6 of axis 1"),
            ("gather_negative_out_of_range_opset13", "node 'y' (Gather): index -7 is out of range -6..<6 of axis 1"),
            ("einsum_repeated_letter_opset13", "node 'y' (Einsum): equation 'bii,bij->bj': a letter repeated in a term (a diagonal) is not supported"),
            ("einsum_ellipsis_opset13", "node 'y' (Einsum): equation '...ij,...jk->...ik': only letters are supported in a term (no ellipsis '...')"),
            ("einsum_dot_opset13", "node 'y' (Einsum): equation 'bi,bi->b' is not a matrix product"),
            ("einsum_implicit_opset13", "node 'y' (Einsum): equation 'bij,bjk' has no single '->' (an implicit output is not supported)"),
        ]
        for (name, clause) in cases {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }
}

extension ONNXOpTests {
    /// Swin V2's continuous position bias (an MLP over a constant table of
    /// log-spaced coordinates) and its clamped logit scale fold: constants
    /// multiplied and added, no product left.
    func testPositionBiasMLPOnConstantsFolds() throws {
        let model = try check("cpb_folded_opset13")
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["constant", "multiply", "constant", "add"])
    }

    /// torch.chunk's part size, (size + 2) / 3 in int64, truncates (3 of
    /// 9, not 3.67, which sliced 3.67 to 7.33 as 3 to 7: maxvit_t's qkv
    /// split took 65 of 192 channels); a float division of constants
    /// beside it does not (1.5).
    func testIntegerDivisionTruncatesWhenFolded() throws {
        let model = try check("chunk_integer_division_opset13")
        let slice = try XCTUnwrap(model.nodes.lazy.compactMap { $0.operation.definition as? Slice }.first)
        XCTAssertEqual(slice.end.last, 6)
    }

    /// Every fold that keeps its input's type keeps the integer mark
    /// (Range, Neg, Abs, Where, Mod, Max, ConstantOfShape, Pow), so an int64
    /// Div after it truncates as onnxruntime does: 1 / 2 is 0, not 0.5
    /// added to the input.
    func testIntegerMarkSurvivesEveryFold() throws {
        _ = try check("integer_folds_opset13")
    }

    /// GatherND of a constant table (rows; single values, one at a
    /// negative index) folds; an index past the table is refused.
    func testGatherNDOfConstantsFolds() throws {
        let model = try check("gathernd_folded_opset13")
        XCTAssertFalse(model.nodes.contains { $0.operation.definition is Slice })
        XCTAssertThrowsError(try convert("gathernd_out_of_range_opset13")) { error in
            XCTAssertTrue("\(error)".contains("node 'cell' (GatherND): index 4 is out of range for axis 0 of size 4"), "\(error)")
        }
    }
}
