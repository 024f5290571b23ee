import CoreMLBackend
import Foundation
import ModelFormat
import ONNXFrontend
import Runtime
import TestSupport
import XCTest

/// One small graph per opset-dependent behaviour (built node by node by
/// scripts/fixtures/make_onnx_op_fixtures.py, with onnxruntime's output):
/// converted, written, run, compared with 1e-4 * max(1, |ref|); each also
/// as an ML Program package (float32 compute), read back and held to the
/// same references (issue 36).
final class ONNXOpTests: XCTestCase {
    static let folder = onnxFixtures.appendingPathComponent("ops")

    /// Softmax's default axis is 1 before opset 13 and -1 from 13: on a
    /// vector both are its features.
    func testSoftmaxOfAVectorAtBothOpsets() throws {
        try check("softmax_vector_opset11")
        try check("softmax_vector_opset13")
    }

    /// Along axis 1 of a map at opset 13 is the channel softmax; the same
    /// node at opset 11 normalizes C, H and W together and is refused.
    func testSoftmaxAlongChannelsOnlyFromOpset13() throws {
        try check("softmax_channels_opset13")
        XCTAssertThrowsError(try convert("softmax_channels_opset11")) { error in
            XCTAssertTrue("\(error)".contains("before opset 13 Softmax flattens [1, C, H, W] from axis 1"), "\(error)")
        }
    }

    /// LogSoftmax, one node: a vector at both opsets' default axes, the last
    /// axis of a sequence at both opsets, axis 1 at 13, a map's channels.
    /// Lines hold values 200 apart, where log(softmax(x)) is -inf in
    /// float32. On a sequence (tensors: specification 4) it is written as
    /// reduceLogSumExp and a broadcasting subtract; on a map, with nothing
    /// else needing version 4, as eight layers of version 1.
    func testLogSoftmaxAlongAnAxis() throws {
        for name in ["logsoftmax_vector_opset11", "logsoftmax_vector_opset13", "logsoftmax_last_axis_opset11",
                     "logsoftmax_last_axis_opset13", "logsoftmax_axis1_opset13", "logsoftmax_channels_opset13"] {
            let model = try check(name)
            XCTAssertEqual(model.nodes.map(\.operation.kindName), ["logSoftmax"], name)
        }
        // For scripts/check_mlmodels.py: the layers as coremltools decodes them.
        let tensor: [String: Any] = [
            "specificationVersion": 4, "arrayInputShapeMapping": "EXACT_ARRAY_MAPPING", "layerCount": 2,
            "inputs": [["name": "x", "type": "multiArray", "shape": [1, 4, 5]]],
            "layers": [["name": "y__logsumexp", "type": "reduceLogSumExp", "inputs": ["x"], "outputs": ["y__logsumexp"],
                        "params": ["axes": [-1], "keepDims": true, "reduceAll": false]],
                       ["name": "y", "type": "subtractBroadcastable", "inputs": ["x", "y__logsumexp"], "outputs": ["y"]]],
        ]
        func layer(_ name: String, _ type: String, _ inputs: [String], _ params: [String: Any] = [:]) -> [String: Any] {
            ["name": name, "type": type, "inputs": inputs, "outputs": [name], "params": params]
        }
        let map: [String: Any] = [
            "specificationVersion": 1, "arrayInputShapeMapping": "RANK5_ARRAY_MAPPING", "layerCount": 8,
            "inputs": [["name": "x", "type": "multiArray", "shape": [4, 3, 3]]],
            "layers": [layer("y__max", "reduce", ["x"], ["mode": "MAX", "axis": "C"]),
                       layer("y__negated_max", "multiply", ["y__max"], ["alpha": -1]),
                       layer("y__shifted", "add", ["x", "y__negated_max"]),
                       layer("y__exp", "unary", ["y__shifted"], ["type": "EXP"]),
                       layer("y__sum", "reduce", ["y__exp"], ["mode": "SUM", "axis": "C"]),
                       layer("y__log", "unary", ["y__sum"], ["type": "LOG", "epsilon": Double(Float.leastNonzeroMagnitude)]),
                       layer("y__negated_log", "multiply", ["y__log"], ["alpha": -1]),
                       layer("y", "add", ["y__shifted", "y__negated_log"])],
        ]
        for (name, expectation) in [("logsoftmax_last_axis_opset13", tensor), ("logsoftmax_channels_opset13", map)] {
            try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
                .write(to: checkDirectory.appendingPathComponent("onnx_op_\(name).expect.json"))
        }
    }

    /// LayerNormalization, one LayerNorm node written as Core ML's
    /// layerNormalization layer: with scale and bias, and with one scale
    /// value broadcast (written as one per element) and no bias (zeros).
    func testLayerNormalizationIsOneLayer() throws {
        for name in ["layernorm_opset17", "layernorm_one_scale_opset17"] {
            let model = try check(name)
            XCTAssertEqual(model.nodes.map(\.operation.kindName), ["layerNorm"], name)
        }
        // For scripts/check_mlmodels.py: the layer as coremltools decodes it.
        let expectation: [String: Any] = [
            "specificationVersion": 4, "layerCount": 1,
            "layers": [["name": "y", "type": "layerNormalization", "inputs": ["x"], "outputs": ["y"],
                        "params": ["normalizedShape": [8], "eps": 1e-5, "gamma.floatValue": [Float](repeating: 2, count: 8),
                                   "beta.floatValue": [Float](repeating: 0, count: 8)]]],
        ]
        try JSONSerialization.data(withJSONObject: expectation, options: [.prettyPrinted, .sortedKeys])
            .write(to: checkDirectory.appendingPathComponent("onnx_op_layernorm_one_scale_opset17.expect.json"))
    }

    /// Before opset 13 LogSoftmax normalizes the input flattened from the
    /// axis: along axis 1 of [1, 4, 5] that is 20 values together, refused.
    func testLogSoftmaxFlattenedBeforeOpset13IsRefused() throws {
        XCTAssertThrowsError(try convert("logsoftmax_axis1_opset11")) { error in
            XCTAssertTrue("\(error)".contains("node 'y' (LogSoftmax): before opset 13 LogSoftmax flattens its input [1, 4, 5] from axis 1"), "\(error)")
        }
    }

    func testClipBoundsAsAttributesThenInputs() throws {
        try check("clip_opset9")
        try check("clip_opset13")
    }

    /// The flatten exporters write as shape arithmetic (Shape, Gather,
    /// Unsqueeze with its axes as an attribute, then as an input, Concat,
    /// Reshape) folds away; Gemm with transB, alpha and beta.
    func testShapeArithmeticFoldsAtBothOpsets() throws {
        for opset in [9, 13] {
            let model = try check("flatten_by_shape_opset\(opset)")
            XCTAssertEqual(model.nodes.map(\.operation.kindName), ["flatten", "innerProduct"], "opset \(opset)")
        }
    }

    func testPadAsAttributeThenInputAndReflectMode() throws {
        try check("pad_opset9")
        try check("pad_opset13")
    }

    func testReduceMeanAxesAsAttributeThenInput() throws {
        try check("reduce_mean_opset13")
        try check("reduce_mean_opset18")
    }

    func testArithmeticWithConstantsAndTensors() throws { try check("arithmetic_opset13") }
    func testActivations() throws { try check("activations_opset13") }

    func testUnaryOpsAndConstantPowers() throws { try check("unary_opset13") }
    func testPReluPerChannelAndSelu() throws { try check("prelu_selu_opset13") }
    /// Opset 20's Gelu, exact and tanh-approximated: Core ML's GELU modes.
    func testGelu() throws { try check("gelu_opset20") }

    /// Where folded from constants whose values hold NaN and inf: the fold
    /// marks the side not chosen with NaN, so X's own NaN where the
    /// condition holds must still come out NaN (it does: the Y side is NaN there).
    func testWhereOfConstantsKeepsXsNaN() throws { try check("where_nan_opset13") }

    /// GELU spelled with Erf as both PyTorch exporters write it (was: the
    /// dynamo exporter's 0.5 * (1 + erf) before the product by x was refused,
    /// its Erf unsupported): two GELU nodes. A chain whose last product is
    /// by another tensor is no GELU and its Erf is refused by name.
    func testGeluSpelledWithErf() throws {
        let model = try check("gelu_erf_opset13")
        XCTAssertEqual(model.nodes.map(\.operation.kindName), ["gelu", "gelu"])
        XCTAssertThrowsError(try convert("gelu_erf_not_x_opset13")) { error in
            XCTAssertTrue("\(error)".contains("1 node of 1 unsupported op type: Erf x1 (n_e)"), "\(error)")
        }
    }
    func testMaxAndMinOfTensorsAndScalars() throws { try check("max_min_opset13") }
    func testInstanceNormalization() throws { try check("instance_norm_opset13") }

    /// The weights lie in external_data.bin beside the model.
    func testExternalData() throws { try check("external_data") }

    func testEveryUnsupportedOpIsListedAtOnce() throws {
        XCTAssertThrowsError(try convert("unsupported_ops")) { error in
            XCTAssertTrue("\(error)".hasSuffix("unsupported_ops.onnx: 3 nodes of 2 unsupported op types: LSTM x2 (lstm_a, lstm_b); NonMaxSuppression x1 (nms)"), "\(error)")
        }
    }

    /// Split into slices: sizes as an attribute (11), an input (13), equal
    /// parts (13) and num_outputs with a smaller last part (18), along
    /// channels, rows and columns of maps and axes of a tensor; each output
    /// against onnxruntime's. A part no node reads is not made.
    func testSplit() throws {
        for (name, others, kind) in [("split_channels_opset11", ["y1", "y2"], "slice"), ("split_rows_equal_opset13", ["y1", "y2"], "slice"),
                                     ("split_columns_input_opset13", ["y1"], "slice"), ("split_num_outputs_opset18", ["y1", "y2"], "slice"),
                                     ("split_tensor_opset13", ["y1"], "slice of every axis"),
                                     ("split_tensor_num_outputs_opset18", ["y1", "y2", "y3"], "slice of every axis")] {
            let model = try check(name, also: others)
            // A map's parts are slices of one of its axes (Core ML's classic slice), a tensor's list every axis (sliceStatic).
            let kinds = model.nodes.map { ($0.operation.definition as? Slice)?.mapAxis == nil ? "\($0.operation.kindName) of every axis" : "slice" }
            XCTAssertEqual(kinds, [String](repeating: kind, count: others.count + 1), name)
        }
        XCTAssertEqual(try check("split_unread_part_opset13").nodes.map(\.operation.kindName), ["slice", "activation"])
    }

    /// Sizes that are not the axis's, an axis out of range, a size of
    /// 2^63 - 1: each one error naming the node.
    func testSplitRefusals() throws {
        for (name, clause) in [("split_sizes_not_the_axis_opset13", "node 'y' (Split): split [1, 2] does not divide axis 1 of [1, 6, 2, 2]"),
                               ("split_axis_out_of_range_opset13", "node 'y' (Split): axis 4 is out of range for rank 4"),
                               ("split_size_2p63_opset11", "node 'y' (Split): split [9223372036854775807, 1] does not divide axis 1")] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }

    /// Each reduction on a map (C, H, W, HW, CHW: Core ML's reduce layer)
    /// with its axes as an attribute and as an input, and on a tensor; axes
    /// a map's reduce cannot take, keepdims 0 over channels and an empty
    /// axes list (every axis) on tensors; LogSumExp of values to 1000.
    func testReductions() throws {
        for op in ["reducesum", "reducemax", "reducemin", "reduceprod", "reducel2", "reducesumsquare", "reducelogsumexp"] {
            for opset in [13, 18] {
                // LogSumExp subtracts the maximum first, on tensors.
                let model = try check("\(op)_map_opset\(opset)")
                XCTAssertEqual(model.hasTensorInputs, op == "reducelogsumexp", "\(op) \(opset)")
                XCTAssertTrue(model.nodes.contains { $0.operation.kindName == "reduce" }, "\(op) \(opset): \(model.nodes.map(\.operation.kindName))")
            }
            let model = try check("\(op)_tensor_opset18")
            XCTAssertTrue(model.hasTensorInputs && model.nodes.contains { $0.operation.kindName == "reduce" }, "\(op): \(model.nodes.map(\.operation.kindName))")
        }
        // Values to 1000, where exp overflows float32: finite, as onnxruntime gives them.
        try check("reducelogsumexp_large_opset18")
        for name in ["reducesum_channels_rows_opset13", "reducemax_channels_keepdims0_opset18", "reducesum_empty_axes_opset13", "reducel2_empty_axes_opset18"] {
            let model = try check(name)  // on tensors: the rank-N reduce layers
            XCTAssertTrue(model.hasTensorInputs && model.nodes.contains { $0.operation.kindName == "reduce" }, name)
        }
        for (name, clause) in [("reducemax_axis_out_of_range_opset13", "node 'y' (ReduceMax): axes [4] are not distinct axes of [1, 3, 4, 5]"),
                               ("reducemax_axes_repeated_opset13", "node 'y' (ReduceMax): axes [1, -3] are not distinct axes of [1, 3, 4, 5]")] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }

    /// Sum and Mean of one to three inputs broadcast against each other, on
    /// maps and tensors; a constant in a Mean of three is refused.
    func testSumAndMeanOfSeveralInputs() throws {
        try check("sum_mean_map_opset13")
        try check("sum_mean_tensor_opset13")
        XCTAssertThrowsError(try convert("mean_with_constant_opset13")) { error in
            XCTAssertTrue("\(error)".contains("node 'y' (Mean): a constant operand (input 2) is supported only in a Sum of two inputs"), "\(error)")
        }
    }

    /// DepthToSpace (DCR, CRD, the default) and SpaceToDepth as a rank-5
    /// reshape, a transpose and a reshape; a blocksize that does not divide
    /// the channels, and one of 2^63 - 1, refused.
    func testDepthToSpaceAndSpaceToDepth() throws {
        for name in ["depth_to_space_dcr_opset13", "depth_to_space_crd_opset13", "depth_to_space_default_opset11", "space_to_depth_opset13"] {
            let kinds = try check(name).nodes.map(\.operation.kindName)
            XCTAssertEqual(Array(kinds.suffix(3)), ["reshape", "transpose", "reshape"], name)
        }
        for (name, clause) in [("depth_to_space_channels_not_multiple_opset13", "node 'y' (DepthToSpace): blocksize 2: 6 channels are not a multiple of 4"),
                               ("space_to_depth_blocksize_2p63_opset13", "node 'y' (SpaceToDepth): blocksize 9223372036854775807 must be 1 to 65536")] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }

    /// CumSum as one specification-4 cumSum layer: along tensors' last axis
    /// and axis 1 (exclusive, reverse), along a map's channels and rows
    /// (axes counted from the end); along the batch axis, an axis of
    /// 2^63 - 1 and exclusive=2, refused by name.
    func testCumSum() throws {
        for (name, axis) in [("cumsum_last_opset14", -1), ("cumsum_exclusive_reverse_opset14", 1),
                             ("cumsum_channels_reverse_opset11", -3), ("cumsum_rows_exclusive_opset11", -2)] {
            let sums = try check(name).nodes.compactMap { $0.operation.definition as? CumSum }
            XCTAssertEqual(sums.map(\.axis), [axis], name)
        }
        for (name, clause) in [("cumsum_batch_axis_opset11", "node 'y' (CumSum): a cumulative sum along the batch axis (0) of a map or vector is not supported"),
                               ("cumsum_axis_2p63_opset11", "node 'y' (CumSum): the axis must be one whole number, not [9.223372036854776e+18]"),
                               ("cumsum_exclusive_2_opset11", "node 'y' (CumSum): exclusive must be 0 or 1, not 2")] {
            XCTAssertThrowsError(try convert(name), name) { error in XCTAssertTrue("\(error)".contains(clause), "\(name): \(error)") }
        }
    }

    func convert(_ name: String) throws -> Model {
        try ONNXConverter.convert(model: Self.folder.appendingPathComponent("\(name).onnx").path)
    }

    @discardableResult
    func check(_ name: String, also others: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> Model {
        let model = try convert(name)
        let path = checkDirectory.appendingPathComponent("onnx_op_\(name).mlmodel").path
        try CoreMLWriter.write(model, to: path)
        try compare(name, try Network(contentsOf: path), others: others, file: file, line: line)
        let package = try temporaryFolder().appendingPathComponent("\(name).mlpackage").path
        try MLProgramWriter.write(model, to: package)
        try compare(name + " as a program", try Network(try CoreMLReader.read(from: package).model), fixture: name, others: others, file: file, line: line)
        return model
    }

    /// `network`'s outputs for the fixture's input against onnxruntime's.
    func compare(_ name: String, _ network: Network, fixture: String? = nil, others: [String], file: StaticString, line: UInt) throws {
        let fixture = fixture ?? name
        let input = try XCTUnwrap(network.model.inputs.first)
        let expected: TensorShape
        switch input.kind {
        case .array(let shape): expected = try XCTUnwrap(TensorShape(featureShape: shape))
        case .tensor(let shape): expected = TensorShape(shape)
        default: throw XCTSkip("input is not an array or tensor")
        }
        let value = try NumpyFile.tensor(path: Self.folder.appendingPathComponent("\(fixture)_input.npy").path, fitting: expected, input: input.name)
        let prediction = try network.predict([input.name: .array(value)])
        // Output y, and the `others` a node with several outputs gives (NAME_output_OTHER.npy).
        for output in ["y"] + others {
            let stored = output == "y" ? "\(fixture)_output.npy" : "\(fixture)_output_\(output).npy"
            let reference = try NumpyFile.read(path: Self.folder.appendingPathComponent(stored).path).values
            let ours = try XCTUnwrap(prediction.outputs[output]?.values, "\(name): no output \(output)", file: file, line: line)
            XCTAssertEqual(ours.count, reference.count, "\(name) \(output)", file: file, line: line)
            if let worst = worstMismatch(ours, reference) {
                XCTFail("\(name) \(output): value \(worst.index) is \(worst.ours), onnxruntime gives \(worst.reference)", file: file, line: line)
            }
        }
    }
}
