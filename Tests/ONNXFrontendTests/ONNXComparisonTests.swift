import ModelFormat
import ONNXFrontend
import XCTest

/// Comparisons, logic, Where and Cast on tensors computed from the input
/// (fixtures by scripts/fixtures/make_onnx_op_fixtures.py's comparisons,
/// with onnxruntime's output), checked as `ONNXOpTests.check` does.
extension ONNXOpTests {
    /// Equal, Less, Greater, LessOrEqual, GreaterOrEqual against scalars
    /// on either side (one input and alpha, mirrored when the constant
    /// comes first), constants and tensors broadcast; And, Or, Xor, Not of
    /// the results; Cast to bool (not equal to 0); NaN and infinities in the
    /// input (NaN equals nothing and is neither less nor greater, as
    /// onnxruntime computes).
    func testComparisonsOfComputedTensors() throws {
        let model = try check("compare_tensors_opset13")
        let kinds = model.nodes.compactMap { ($0.operation.definition as? Comparison)?.kind }
        XCTAssertEqual(Set(kinds), Set(Comparison.Kind.allCases))
        // Greater(1, x) is x < 1: one input, alpha 1.
        let mirrored = try XCTUnwrap(model.nodes.first { $0.name == "gt" })
        XCTAssertEqual(mirrored.operation.definition as? Comparison, Comparison(.less, alpha: 1))
        XCTAssertEqual(mirrored.inputs.count, 1)
    }

    /// On [1, C, H, W] maps (no tensor walk): against a scalar, a map of
    /// the same shape, a pooled [C, 1, 1] one holding a NaN; Not; Where.
    func testComparisonsOfMaps() throws {
        let model = try check("compare_maps_opset13")
        XCTAssertFalse(model.hasTensorInputs)
        XCTAssertTrue(model.nodes.contains { $0.operation.definition is Where })
    }

    /// Where whose condition is computed from the input, with a scalar, a
    /// constant row broadcast, a NaN chosen from X; Equal(x, x) then
    /// Where replaces NaN.
    func testWhereWithAComputedCondition() throws {
        let model = try check("where_computed_opset13")
        XCTAssertEqual(model.nodes.filter { $0.operation.definition is Where }.count, 3)
    }

    /// A map's Where with a per-channel constant: constants are tensors of
    /// ONNX's shapes, so the graph is walked again with every value a tensor.
    func testWhereOfAMapAndAConstant() throws {
        let model = try check("where_map_constant_opset13")
        XCTAssertTrue(model.hasTensorInputs)
    }

    /// Shifted-window attention's mask computed from a tensor (Sub, Equal,
    /// Not, Where of -100 and 0), added to q k^T before the softmax.
    func testAttentionMaskComputedFromATensor() throws {
        let model = try check("mask_computed_opset13")
        let kinds = model.nodes.map(\.operation.kindName)
        XCTAssertTrue(kinds.contains("equal") && kinds.contains("logicalNot") && kinds.contains("where"), "\(kinds)")
    }

    /// What float32 values cannot honour is refused by name: int64
    /// constants beyond 2^24, a cast of a tensor to int64.
    func testComparisonRefusals() throws {
        for (name, clause) in [("where_int64_beyond_2p24_opset13", "the integer 16777217, beyond 2^24"),
                               ("cast_tensor_to_int64_opset13", "to type 7 of a computed tensor is not supported")] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }
}
