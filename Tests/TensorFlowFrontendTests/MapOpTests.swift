import Foundation
import ModelFormat
import TensorFlowFrontend
import TestSupport
import XCTest

/// StridedSlice and the other ops on maps (values checked against
/// TensorFlow in TensorFlowParityTests.testKeras3LayersFrozen and
/// testKeras3MapOpsFrozen): what they become, and what is refused with the
/// node's name.
final class MapOpTests: XCTestCase {
    func graph(begin: [Int], end: [Int], strides: [Int], attributes: String = "") -> String {
        func constant(_ name: String, _ values: [Int]) -> String {
            "node { name: \"\(name)\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } "
                + values.map { "int_val: \($0)" }.joined(separator: " ") + " } } } }\n"
        }
        return """
            node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 1 } dim { size: 6 } dim { size: 5 } dim { size: 4 } } } } }

            """ + constant("begin", begin) + constant("end", end) + constant("strides", strides)
            + "node { name: \"slice\" op: \"StridedSlice\" input: \"x\" input: \"begin\" input: \"end\" input: \"strides\" \(attributes) }\n"
    }

    func convert(_ text: String) throws -> Model {
        let path = try temporaryFolder().appendingPathComponent("graph.pbtxt").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return try TensorFlowConverter.convert(graph: path)
    }

    func testACropAndAStrideBecomeSlices() throws {
        // x[:, 1:, ::2, 1:3] with begin and end masks on the batch axis and the W end.
        let model = try convert(graph(begin: [0, 1, 0, 1], end: [0, 0, 0, 3], strides: [1, 1, 2, 1],
                                      attributes: "attr { key: \"begin_mask\" value { i: 5 } } attr { key: \"end_mask\" value { i: 7 } }"))
        XCTAssertEqual(model.nodes.map(\.operation), [.slice(Slice(axis: .height, start: 1, end: 6)),
                                                      .slice(Slice(axis: .width, start: 0, end: 5, stride: 2)),
                                                      .slice(Slice(axis: .channel, start: 1, end: 3))])
        XCTAssertEqual(try model.validate()["slice"], TensorShape(channels: 2, height: 5, width: 3))
    }

    /// A later output of a Split feeds a layer: the walk carries output indices.
    func testASplitsSecondOutputIsUsable() throws {
        let model = try convert("""
            node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 1 } dim { size: 6 } dim { size: 5 } dim { size: 4 } } } } }
            node { name: "dim" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: -1 } } } }
            node { name: "parts" op: "Split" input: "dim" input: "x" attr { key: "num_split" value { i: 2 } } }
            node { name: "second" op: "Relu" input: "parts:1" }

            """)
        XCTAssertEqual(model.nodes.map(\.operation), [.slice(Slice(axis: .channel, start: 0, end: 2)),
                                                      .slice(Slice(axis: .channel, start: 2, end: 4)), .activation(.relu)])
        XCTAssertEqual(model.nodes.last?.inputs, ["parts__1"])
    }

    /// Graphs a stranger could write against the later-outputs walk and the rewrites: each one error, no trap.
    func testHostileOutputIndicesAndPatterns() throws {
        let x = "node { name: \"x\" op: \"Placeholder\" attr { key: \"shape\" value { shape { dim { size: 1 } dim { size: 6 } dim { size: 5 } dim { size: 4 } } } } }\n"
        let dim = "node { name: \"dim\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: -1 } } } }\n"
        let split = "node { name: \"parts\" op: \"Split\" input: \"dim\" input: \"x\" attr { key: \"num_split\" value { i: 2 } } }\n"
        let huge = "node { name: \"sizes\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1024 } } "
            + Array(repeating: "int64_val: 9007199254740992", count: 1024).joined(separator: " ") + " } } } }\n"
        let cases: [(String, String)] = [
            (dim + split + "node { name: \"r\" op: \"Relu\" input: \"parts:-1\" }\n", "has no value"),
            (dim + split + "node { name: \"r\" op: \"Relu\" input: \"parts:2\" }\n", "has no value"),
            (dim + huge + "node { name: \"s\" op: \"SplitV\" input: \"x\" input: \"sizes\" input: \"dim\" }\n", "do not split 4"),
            ("node { name: \"half\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }\n"
             + "node { name: \"m\" op: \"Mul\" input: \"half\" input: \"x\" }\nnode { name: \"e\" op: \"Erfc\" }\n"
             + "node { name: \"g\" op: \"Mul\" input: \"m\" input: \"e\" }\n", "Erfc"),
        ]
        for (nodes, expected) in cases {
            do {
                _ = try convert(x + nodes)
                XCTFail("converted: \(expected)")
            } catch {
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
        // IdentityN passes each input through, the second one too.
        let model = try convert(x + "node { name: \"n\" op: \"Neg\" input: \"x\" }\n"
                                + "node { name: \"i\" op: \"IdentityN\" input: \"x\" input: \"n\" }\nnode { name: \"r\" op: \"Relu\" input: \"i:1\" }\n")
        XCTAssertEqual(model.nodes.last?.inputs, ["n"])
    }

    func testSlicesItCannotWriteAreRefused() {
        let cases: [(String, String)] = [
            (graph(begin: [0, 0, 0, 0], end: [1, 6, 5, 4], strides: [1, 1, 1, 1], attributes: "attr { key: \"shrink_axis_mask\" value { i: 2 } }"),
             "shrink_axis_mask is not supported"),
            (graph(begin: [0, 0, 0, 0], end: [1, 6, 5, 4], strides: [1, -1, 1, 1]), "must have 4 values, strides positive"),
            (graph(begin: [1, 0, 0, 0], end: [2, 6, 5, 4], strides: [1, 1, 1, 1]), "slicing the batch axis is not supported"),
            (graph(begin: [0, 4, 0, 0], end: [1, 2, 5, 4], strides: [1, 1, 1, 1]), "axis 1 keeps nothing"),
        ]
        for (text, expected) in cases {
            do {
                _ = try convert(text)
                XCTFail("converted: \(expected)")
            } catch {
                XCTAssertTrue("\(error)".contains("graph.pbtxt: node 'slice' (StridedSlice): ") && "\(error)".contains(expected), "\(error)")
            }
        }
    }

    /// The other map ops refuse what Core ML cannot do the same way.
    func testMapOpsRefuseWhatCoreMLComputesOtherwise() {
        let input = """
            node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 1 } dim { size: 6 } dim { size: 5 } dim { size: 4 } } } } }

            """
        func ints(_ name: String, _ values: [Int]) -> String {
            "node { name: \"\(name)\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: \(values.count) } } "
                + values.map { "int_val: \($0)" }.joined(separator: " ") + " } } } }\n"
        }
        let cases: [(String, String)] = [
            (ints("p", [0, 0, 1, 1, 1, 1, 0, 0]) + "node { name: \"op\" op: \"MirrorPad\" input: \"x\" input: \"p\" attr { key: \"mode\" value { s: \"SYMMETRIC\" } } }",
             "node 'op' (MirrorPad): mode SYMMETRIC is not supported (only REFLECT)"),
            (ints("p", [0, 0, 6, 0, 0, 0, 0, 0]) + "node { name: \"op\" op: \"MirrorPad\" input: \"x\" input: \"p\" attr { key: \"mode\" value { s: \"REFLECT\" } } }",
             "needs more than the 6x5 input has"),
            (ints("s", [9, 10]) + "node { name: \"op\" op: \"ResizeNearestNeighbor\" input: \"x\" input: \"s\" }",
             "only resizing to whole multiples of the 6x5 input is supported, not [9, 10]"),
            (ints("s", [12, 10]) + "node { name: \"op\" op: \"ResizeNearestNeighbor\" input: \"x\" input: \"s\" attr { key: \"align_corners\" value { b: true } } }",
             "align_corners is not supported"),
            (ints("perm", [1, 0, 2, 3]) + "node { name: \"op\" op: \"Transpose\" input: \"x\" input: \"perm\" }",
             "only permutations of H, W and C with the batch axis first are supported"),
            (ints("axes", [3]) + "node { name: \"op\" op: \"Max\" input: \"x\" input: \"axes\" }",
             "keep_dims false over the last axis is not supported (only true)"),
            (ints("axes", [1]) + "node { name: \"op\" op: \"Max\" input: \"x\" input: \"axes\" }",
             "a max over axis [1] of a rank-4 tensor is not supported (only over H and W, axis [1, 2], or the last axis)"),
            ("node { name: \"row\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } "
             + "dim { size: 1 } dim { size: 5 } dim { size: 4 } } float_val: 2 } } } }\n"
             + "node { name: \"op\" op: \"AddV2\" input: \"x\" input: \"row\" }",
             "adding a constant of shape [1, 1, 5, 4] is not supported (only scalars, per-channel and [H, W] maps)"),
            (ints("dim", [3]) + "node { name: \"op\" op: \"Split\" input: \"dim\" input: \"x\" attr { key: \"num_split\" value { i: 3 } } }",
             "4 does not split into 3 equal parts"),
            (ints("dim", [1]) + ints("sizes", [2, 2]) + "node { name: \"op\" op: \"SplitV\" input: \"x\" input: \"sizes\" input: \"dim\" }",
             "sizes [2, 2] do not split 6"),
            (ints("dim", [0]) + "node { name: \"op\" op: \"Split\" input: \"dim\" input: \"x\" attr { key: \"num_split\" value { i: 1 } } }",
             "only splits along H, W or C of a map, or of a vector, are supported, not axis 0"),
        ]
        for (nodes, expected) in cases {
            do {
                _ = try convert(input + nodes + "\n")
                XCTFail("converted: \(expected)")
            } catch {
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
            }
        }
    }
}
