import Foundation
@testable import TensorFlowFrontend
import SweepSupport
import TestSupport
import XCTest

/// The TensorFlow attribute sweep (scripts/fixtures/make_tensorflow_sweep.py):
/// every case converted and equal to TensorFlow's Session output, or refused
/// naming the attribute (or the op).
final class AttributeSweepTests: XCTestCase {
    func testSweep() throws {
        try runAttributeSweep("tensorflow") { folder, testCase in
            try TensorFlowConverter.convert(graph: folder.appendingPathComponent(testCase.files[0]).path, outputs: ["y"])
        }
    }
}

/// The ledgers (TFAttributeLedgers.swift): every op the walk takes has one,
/// an attribute none names is refused by name, and hostile values are
/// refused with one line naming the attribute, never a trap.
final class TFAttributeLedgerTests: XCTestCase {
    /// Every honoured attribute of every op has a case in the sweep.
    func testEveryHonouredAttributeHasASweepCase() throws {
        XCTAssertEqual(try unsweptHonouredAttributes("tensorflow", ledgers: TFOpTable.ledgers, types: TFOpTable.knownOps,
                                                     exempt: Self.setByEveryCase), [])
        // "Set by every case" holds only for ops the sweep has cases of (Const: every case's weights).
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: repositoryRoot
            .appendingPathComponent("Tests/Fixtures/sweep/tensorflow/cases.json"))) as? [String: Any]
        let swept = Set((manifest?["cases"] as? [[String: Any]] ?? []).compactMap { $0["op"] as? String })
        let exemptOps = Set(Self.setByEveryCase.map { String($0.split(separator: ".")[0]) })
        XCTAssertEqual(exemptOps.subtracting(swept), ["Const"])
    }

    /// Honoured attributes TensorFlow writes on every node of the op, so
    /// that every sweep case of the op sets them: the type parameters (T
    /// DT_FLOAT on a layer; DT_INT32 on the fold_* cases' shape arithmetic;
    /// Tidx, Tpaddings, Tdim, Tperm, Tlen, Index the index inputs' type),
    /// ConcatV2's and Pack's N (their input count) and Const's value and
    /// dtype (every case's weights). Other types than float32 on a layer are
    /// refused by `requireFloat32`, which testHostileAndUnlistedAttributesAreRefusedByName
    /// (Conv2D T DT_HALF, Relu T DT_INT32) and testBatchNormAndFoldingValuesAreRefusedByName
    /// (FusedBatchNormV3 U DT_DOUBLE, RealDiv T DT_INT32, folding's int32 overflow) compare.
    static let setByEveryCase: Set<String> = {
        let typeParameters: Set<String> = ["T", "U", "Tidx", "Tpaddings", "Tdim", "Tperm", "Tlen", "Index", "SrcT", "dtype"]
        let types = TFOpTable.knownOps.flatMap { op in
            (TFOpTable.ledgers[op]?.honoured ?? []).filter(typeParameters.contains).map { "\(op).\($0)" }
        }
        return Set(types).union(["ConcatV2.N", "Pack.N", "Const.value"])
    }()

    func testEveryOpTheWalkTakesHasALedger() {
        XCTAssertEqual(TFOpTable.ledgers.missing(for: TFOpTable.mappings.keys), [])
        XCTAssertEqual(TFOpTable.ledgers.missing(for: TFOpTable.multipleOutputMappings.keys), [])
        XCTAssertEqual(TFOpTable.ledgers.missing(for: ConstantEvaluator.foldable), [])
        XCTAssertEqual(TFOpTable.ledgers.missing(for: TFOpTable.knownOps), [])
        // Every op that has a data_format accepts NHWC only.
        for op in ["Conv2D", "Conv2DBackpropInput", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "BiasAdd",
                   "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3", "SpaceToDepth"] {
            XCTAssertEqual(TFOpTable.ledgers[op]?.rules["data_format"], .only("NHWC"), op)
        }
    }

    let x = "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } "
        + "attr { key: \"shape\" value { shape { dim { size: 1 } dim { size: 6 } dim { size: 5 } dim { size: 4 } } } } }\n"

    func ints(_ name: String, _ values: [Int], type: String = "DT_INT32") -> String {
        "node { name: \"\(name)\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: \(type) tensor_shape { dim { size: \(values.count) } } "
            + values.map { "\(type == "DT_INT64" ? "int64_val" : "int_val"): \($0)" }.joined(separator: " ") + " } } } }\n"
    }

    func filter(_ shape: [Int]) -> String {
        "node { name: \"w\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { "
            + shape.map { "dim { size: \($0) }" }.joined(separator: " ") + " } float_val: 0.5 } } } }\n"
    }

    func refusal(_ text: String) -> String {
        do {
            let path = try temporaryFolder().appendingPathComponent("graph.pbtxt").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            _ = try TensorFlowConverter.convert(graph: path, outputs: ["op"])
            return "converted"
        } catch {
            return "\(error)"
        }
    }

    func testHostileAndUnlistedAttributesAreRefusedByName() {
        let conv = { (attributes: String) in
            self.x + self.filter([3, 3, 4, 2]) + "node { name: \"op\" op: \"Conv2D\" input: \"x\" input: \"w\" \(attributes) }\n"
        }
        let pool = { (attributes: String) in self.x + "node { name: \"op\" op: \"MaxPool\" input: \"x\" \(attributes) }\n" }
        let cases: [(String, String)] = [
            (conv("attr { key: \"strides\" value { list { i: 1 i: 0 i: 0 i: 1 } } }"), "strides [1, 0, 0, 1] is not supported"),
            (conv("attr { key: \"strides\" value { list { i: 1 i: -2 i: 1 i: 1 } } }"), "strides [1, -2, 1, 1] is not supported"),
            (conv("attr { key: \"strides\" value { list { i: 1 i: 9223372036854775807 i: 1 i: 1 } } }"), "strides [1, 9223372036854775807, 1, 1] is not supported"),
            (conv("attr { key: \"dilations\" value { list { i: 1 i: -9223372036854775808 i: 1 i: 1 } } }"), "dilations [1, -9223372036854775808, 1, 1] is not supported"),
            (conv("attr { key: \"padding\" value { s: \"EXPLICIT\" } } attr { key: \"explicit_paddings\" value { list { i: 0 i: 0 i: 1 i: -1 i: 0 i: 0 i: 0 i: 0 } } }"),
             "explicit_paddings [0, 0, 1, -1, 0, 0, 0, 0] is not supported"),
            (conv("attr { key: \"padding\" value { s: \"EXPLICIT\" } } attr { key: \"explicit_paddings\" value { list { i: 0 i: 0 i: 4611686018427387904 i: 0 i: 0 i: 0 i: 0 i: 0 } } }"),
             "explicit_paddings [0, 0, 4611686018427387904, 0, 0, 0, 0, 0] is not supported"),
            (conv("attr { key: \"padding\" value { s: \"EXPLICIT\" } } attr { key: \"explicit_paddings\" value { list { i: 1 i: 0 i: 0 i: 0 i: 0 i: 0 i: 0 i: 0 } } }"),
             "explicit_paddings [1, 0, 0, 0, 0, 0, 0, 0] is not supported"),
            (conv("attr { key: \"padding\" value { s: \"SAME\" } } attr { key: \"explicit_paddings\" value { list { i: 0 i: 0 i: 1 i: 1 i: 1 i: 1 i: 0 i: 0 } } }"),
             "explicit_paddings [0, 0, 1, 1, 1, 1, 0, 0] with padding SAME is not supported"),
            (conv("attr { key: \"padding\" value { s: \"FULL\" } }"), "padding FULL is not supported"),
            (conv("attr { key: \"data_format\" value { s: \"NCHW\" } }"), "node 'op' (Conv2D): data_format 'NCHW' is not supported"),
            (conv("attr { key: \"T\" value { type: DT_HALF } }"), "node 'op' (Conv2D): T DT_HALF is not supported (the converted model computes float32)"),
            (conv("attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"T\" value { type: DT_FLOAT } }"), "attribute T is given more than once"),
            (conv("attr { key: \"_secret_layout\" value { s: \"transposed\" } }"), "node 'op' (Conv2D): _secret_layout 'transposed' is not supported"),
            (pool("attr { key: \"ksize\" value { list { i: 1 i: 0 i: 2 i: 1 } } }"), "ksize [1, 0, 2, 1] is not supported"),
            (pool("attr { key: \"ksize\" value { list { i: 1 i: 2 i: 2 i: 1 } } } attr { key: \"strides\" value { list { i: 1 i: 2 i: -9223372036854775808 i: 1 } } }"),
             "strides [1, 2, -9223372036854775808, 1] is not supported"),
            (x + "node { name: \"op\" op: \"LeakyRelu\" input: \"x\" attr { key: \"alpha\" value { f: nan } } }", "alpha nan is not supported"),
            (x + "node { name: \"op\" op: \"LeakyRelu\" input: \"x\" attr { key: \"alpha\" value { f: -inf } } }", "alpha -inf is not supported"),
            (x + "node { name: \"op\" op: \"Relu\" input: \"x\" attr { key: \"T\" value { type: DT_INT32 } } }", "T DT_INT32 is not supported"),
            (x + "node { name: \"op\" op: \"SpaceToDepth\" input: \"x\" attr { key: \"block_size\" value { i: -9223372036854775808 } } }",
             "block_size -9223372036854775808 does not divide"),
            (x + ints("dim", [3]) + "node { name: \"op\" op: \"Split\" input: \"dim\" input: \"x\" attr { key: \"num_split\" value { i: 9223372036854775807 } } }",
             "does not split into 9223372036854775807 equal parts"),
            (x + "node { name: \"op\" op: \"Squeeze\" input: \"x\" attr { key: \"squeeze_dims\" value { list { i: -9223372036854775808 } } } }",
             "squeeze_dims [-9223372036854775808] is out of range"),
            (x + ints("p", [0, 0, -1, 0, 0, 0, 0, 0]) + "node { name: \"op\" op: \"Pad\" input: \"x\" input: \"p\" }", "padding -1 is out of range"),
            (x + ints("p", [0, 0, 1 << 62, 0, 0, 0, 0, 0], type: "DT_INT64") + "node { name: \"op\" op: \"Pad\" input: \"x\" input: \"p\" }",
             "the paddings holds 4.611686018427388e+18, not an integer of a usable size"),
            (x + ints("s", [-6, -5]) + "node { name: \"op\" op: \"ResizeBilinear\" input: \"x\" input: \"s\" }",
             "only resizing to whole multiples of the 6x5 input is supported, not [-6, -5]"),
            (x + ints("dim", [3]) + "node { name: \"op\" op: \"Split\" input: \"dim\" input: \"x\" attr { key: \"num_split\" value { i: -9223372036854775808 } } }",
             "does not split into -9223372036854775808 equal parts"),
            (x + ints("a", [Int.min], type: "DT_INT64") + "node { name: \"op\" op: \"ConcatV2\" input: \"x\" input: \"x\" input: \"a\" }",
             "the axis holds -9.223372036854776e+18, not an integer of a usable size"),
            (x + ints("dim", [3]) + ints("sizes", [2, 2]) + "node { name: \"op\" op: \"SplitV\" input: \"x\" input: \"sizes\" input: \"dim\" "
             + "attr { key: \"num_split\" value { i: 3 } } }", "num_split 3 is not the 2 sizes given"),
            (x + "node { name: \"op\" op: \"AvgPool\" input: \"x\" attr { key: \"padding\" value { s: \"EXPLICIT\" } } }", "padding EXPLICIT is not supported"),
            (x + filter([3, 3, 2, 4]) + ints("s", [1, 12, 10, 2]) + "node { name: \"op\" op: \"Conv2DBackpropInput\" input: \"s\" input: \"w\" input: \"x\" "
             + "attr { key: \"dilations\" value { list { i: 1 i: 2 i: 2 i: 1 } } } }", "dilations '[1, 2, 2, 1]' is not supported"),
            (x + ints("axes", [9223372036854775807], type: "DT_INT64") + "node { name: \"op\" op: \"Mean\" input: \"x\" input: \"axes\" }",
             "the axis holds"),
        ]
        for (graph, expected) in cases {
            let message = refusal(graph)
            XCTAssertTrue(message.contains(expected), "expected '\(expected)', got: \(message)")
            XCTAssertFalse(message.contains("\n"), message)
        }
    }

    /// FusedBatchNorm's epsilon and is_training, and folding's types.
    func testBatchNormAndFoldingValuesAreRefusedByName() {
        let c = { (name: String) in
            "node { name: \"\(name)\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 } } } }\n"
        }
        let norm = { (attributes: String) in
            self.x + c("g") + c("b") + c("m") + c("v")
                + "node { name: \"op\" op: \"FusedBatchNormV3\" input: \"x\" input: \"g\" input: \"b\" input: \"m\" input: \"v\" \(attributes) }\n"
        }
        let cases: [(String, String)] = [
            (norm("attr { key: \"epsilon\" value { f: nan } }"), "epsilon must be finite, not [nan]"),
            (norm("attr { key: \"epsilon\" value { f: -1 } }"), "epsilon -1.0 is negative"),
            (norm("attr { key: \"is_training\" value { b: true } }"), "is_training 'true' is not supported"),
            (norm("attr { key: \"data_format\" value { s: \"NCHW\" } }"), "data_format 'NCHW' is not supported"),
            (norm("attr { key: \"U\" value { type: DT_DOUBLE } }"), "U DT_DOUBLE is not supported"),
            (x + "node { name: \"f\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3e9 } } } }\n"
             + "node { name: \"i\" op: \"Cast\" input: \"f\" attr { key: \"DstT\" value { type: DT_INT32 } } }\n"
             + "node { name: \"back\" op: \"Cast\" input: \"i\" }\n"
             + "node { name: \"op\" op: \"AddV2\" input: \"x\" input: \"back\" }", "casting 3000000000.0 to DstT DT_INT32 is out of its range"),
            (x + "node { name: \"f\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 2147483647 } } } }\n"
             + "node { name: \"i\" op: \"AddV2\" input: \"f\" input: \"f\" attr { key: \"T\" value { type: DT_INT32 } } }\n"
             + "node { name: \"op\" op: \"Reshape\" input: \"x\" input: \"i\" }", "folding gives 4294967294.0, which is not a DT_INT32 (T)"),
            (x + "node { name: \"f\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 3 } } } }\n"
             + "node { name: \"i\" op: \"RealDiv\" input: \"f\" input: \"f\" attr { key: \"T\" value { type: DT_INT32 } } }\n"
             + "node { name: \"op\" op: \"Reshape\" input: \"x\" input: \"i\" }", "node 'i' (RealDiv): T DT_INT32 is not supported"),
            (x + "node { name: \"op\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_INT32 } } }", "dtype 'DT_INT32' is not supported"),
        ]
        for (graph, expected) in cases {
            let message = refusal(graph)
            XCTAssertTrue(message.contains(expected), "expected '\(expected)', got: \(message)")
            XCTAssertFalse(message.contains("\n"), message)
        }
    }
}

/// The same sweep written as ML Program packages (issue 36), at float32
/// and float16, against the same references (`checkProgramSweep`): on
/// 2026-12-07 all 214 cases the NeuralNetwork sweep honours computed as the
/// framework does (scripts/verify/mlprogram_sweep.sh checks the packages).
final class ProgramSweepTests: XCTestCase {
    func testSweepAsPrograms() throws {
        try checkProgramSweep("tensorflow", honoured: 214, notYetWritten: 0) { folder, testCase in
            try TensorFlowConverter.convert(graph: folder.appendingPathComponent(testCase.files[0]).path, outputs: ["y"])
        }
    }
}
