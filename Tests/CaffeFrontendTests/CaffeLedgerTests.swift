@testable import CaffeFrontend
import Foundation
import ModelFormat
import SweepSupport
import TestSupport
import XCTest

/// The Caffe ledger (issue 30): every layer type the converter takes has
/// one; a field its mapping does not take refuses the model naming the
/// layer and the field; and the regressions of issue 30 that end refused.
final class CaffeLedgerTests: XCTestCase {
    let regressions = repositoryRoot.appendingPathComponent("Tests/Fixtures/caffe/i30_regressions")

    func testEveryMappedLayerTypeHasALedger() {
        XCTAssertEqual(CaffeLedgers.ledgers.missing(for: CaffeLedgers.mappedTypes), [])
        XCTAssertEqual(CaffeLedgers.mappedTypes.count, CaffeLayerTable.mappings.count + 6)
    }

    /// Every honoured field of every mapped type has a case in the sweep
    /// (Tests/Fixtures/sweep/caffe), compared with OpenCV or numpy per
    /// Caffe's source. Input's shape is set by every case; PriorBox's and
    /// DetectionOutput's fields are compared with OpenCV by SSDDetectorTests.
    func testEveryHonouredFieldHasASweepCase() throws {
        XCTAssertEqual(try unsweptHonouredAttributes("caffe", ledgers: CaffeLedgers.ledgers, types: CaffeLedgers.mappedTypes,
                                                     exempt: ["Input", "PriorBox", "DetectionOutput"]), [])
    }

    func convert(_ layers: String, input: String = "dim: 1 dim: 3 dim: 6 dim: 6") throws -> Model {
        let path = try temporaryFolder().appendingPathComponent("deploy.prototxt").path
        try "name: \"ledger\"\ninput: \"data\"\ninput_shape { \(input) }\n\(layers)".write(toFile: path, atomically: true, encoding: .utf8)
        return try CaffeConverter.convert(deploy: path, weights: nil)
    }

    func refusal(_ layers: String, _ file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try convert(layers)
            XCTFail("converted", file: file, line: line)
            return ""
        } catch {
            XCTAssertFalse("\(error)".contains("\n"), file: file, line: line)
            return "\(error)"
        }
    }

    /// Without weights there are no values to transpose (the fuzz smoke
    /// pass trapped on the sweep's ip_transpose_true deploy, read alone).
    func testATransposedInnerProductReadsWithoutWeights() throws {
        let deploy = repositoryRoot.appendingPathComponent("Tests/Fixtures/sweep/caffe/ip_transpose_true.prototxt").path
        let model = try CaffeConverter.convert(deploy: deploy, weights: nil)
        XCTAssertEqual(model.outputs.count, 1)
    }

    func testAFieldTheMappingDoesNotTakeIsRefusedByName() {
        let cases: [(String, String)] = [
            ("layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2 kernel_size: 3 axis: 2 } }",
             "layer 'c' (Convolution): axis '2' is not supported"),
            ("layer { name: \"b\" type: \"BatchNorm\" bottom: \"data\" top: \"b\" batch_norm_param { use_global_stats: false } }",
             "layer 'b' (BatchNorm): use_global_stats 'false' is not supported"),
            ("layer { name: \"b\" type: \"Bias\" bottom: \"data\" top: \"b\" bias_param { axis: 2 } }", "layer 'b' (Bias): axis '2' is not supported"),
            ("layer { name: \"r\" type: \"Reshape\" bottom: \"data\" top: \"r\" reshape_param { shape { dim: -1 } num_axes: 1 } }",
             "num_axes '1' is not supported"),
            ("layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" relu_param { negative_slope: nan } }",
             "layer 'r' (ReLU): negative_slope 'nan' is not a finite number"),
            ("layer { name: \"l\" type: \"LRN\" bottom: \"data\" top: \"l\" lrn_param { k: inf } }", "k 'inf' is not a finite number"),
            ("layer { name: \"p\" type: \"Power\" bottom: \"data\" top: \"p\" power_param { scale: -inf } }", "scale '-inf' is not a finite number"),
            ("layer { name: \"p\" type: \"Power\" bottom: \"data\" top: \"p\" power_param { scale: 0 shift: -1 power: 0.5 } }",
             "scale 0.0 makes the constant shift^power = "),
            ("layer { name: \"e\" type: \"Eltwise\" bottom: \"data\" bottom: \"data\" top: \"e\" eltwise_param { operation: PROD coeff: 1 coeff: 2 } }",
             "coeff is given for a product"),
            ("layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2 kernel_size: 3 kernel_size: 3 kernel_size: 3 } }",
             "kernel_size has 3 values"),
            ("layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2 kernel_size: 3 kernel_h: 1 kernel_w: 1 } }",
             "kernel_size is given with kernel_h/_w"),
            ("layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { global_pooling: true kernel_size: 2 } }",
             "global_pooling is given with a kernel size"),
            ("layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { kernel_size: 2 pad: 2 } }", "pad 2x2 is not smaller"),
            ("layer { name: \"c\" type: \"Concat\" bottom: \"data\" bottom: \"data\" top: \"c\" concat_param { axis: 1 concat_dim: 1 } }",
             "axis and concat_dim are both given"),
            ("layer { name: \"f\" type: \"Flatten\" bottom: \"data\" top: \"f\" flatten_param { end_axis: 2 } }", "end_axis 2 is not supported"),
        ]
        for (layers, expected) in cases {
            let message = refusal(layers)
            XCTAssertTrue(message.contains(expected), "\(expected): \(message)")
        }
    }

    /// The text decoder skips fields the schema does not know; inside a
    /// layer's parameter message such a field (a fork's ceil_mode, Dropout's
    /// scale_train) is refused with its line, BVLC's inert ones (fillers,
    /// engine) are accepted, and fields of other messages are left alone.
    func testAFieldUnknownToTheSchemaIsRefusedUnlessBVLCKnowsItAsInert() throws {
        let message = refusal("""
            layer { name: "p" type: "Pooling" bottom: "data" top: "p"
              pooling_param { kernel_size: 2 stride: 2 ceil_mode: false } }
            """)
        XCTAssertTrue(message.contains("deploy.prototxt:4: layer 'p' (Pooling): ceil_mode (line 5, column 44) is not a field of BVLC Caffe's "
                                       + "PoolingParameter (a fork's?) and is not supported"), message)
        XCTAssertTrue(refusal("layer { name: \"d\" type: \"Dropout\" bottom: \"data\" top: \"d\" dropout_param { scale_train: false } }\n"
                              + "layer { name: \"r\" type: \"ReLU\" bottom: \"d\" top: \"r\" }").contains("scale_train (line 4"))
        _ = try convert("""
            layer { name: "c" type: "Convolution" bottom: "data" top: "c" param { lr_mult: 1 }
              convolution_param { num_output: 2 kernel_size: 3 weight_filler { type: "xavier" } engine: CAFFE } }
            layer { name: "r" type: "ReLU" bottom: "c" top: "r" loss_weight: 0 relu_param { engine: CUDNN } }
            """)
    }

    func testDefaultsAndInertFieldsConvert() throws {
        _ = try convert("""
            layer { name: "b" type: "BatchNorm" bottom: "data" top: "b" batch_norm_param { use_global_stats: true moving_average_fraction: 0.9 } }
            layer { name: "d" type: "Dropout" bottom: "b" top: "d" dropout_param { dropout_ratio: 0.2 } }
            layer { name: "r" type: "Reshape" bottom: "d" top: "r" reshape_param { shape { dim: 0 dim: -1 } axis: 0 num_axes: -1 } }
            """)
    }

    /// Was: the first unknown layer only (`layer 'a' has the unsupported
    /// type 'FancyLayer'`), so a user learned of the next on the next run.
    /// Every one is named at once, at the first one's line; a training-only
    /// layer of an unknown type is not an obstacle, nor is a known one between.
    func testEveryUnknownLayerTypeIsNamedAtOnce() {
        let message = refusal("""
            layer { name: "a" type: "FancyLayer" bottom: "data" top: "a" }
            layer { name: "r" type: "ReLU" bottom: "a" top: "r" }
            layer { name: "b" type: "FancyLayer" bottom: "r" top: "b" }
            layer { name: "t" type: "TrainOnly" bottom: "b" top: "t" include { phase: TRAIN } }
            layer { name: "c" type: "Fancier" bottom: "b" top: "c" }
            """)
        XCTAssertTrue(message.hasSuffix("deploy.prototxt:4: 3 layers of 2 unsupported layer types: FancyLayer x2 (a, b); Fancier x1 (c)"), message)
    }

    /// Caffe's TEST net (net.cpp FilterNet) leaves out a layer excluded at
    /// TEST, keeps one whose include rules name TEST among others: the
    /// excluded ReLU was converted, and include TRAIN + TEST dropped.
    func testIncludeAndExcludeRulesAsCaffesTestNet() throws {
        let model = try convert("""
            layer { name: "a" type: "ReLU" bottom: "data" top: "a" exclude { phase: TEST } }
            layer { name: "b" type: "TanH" bottom: "data" top: "b" include { phase: TRAIN } include { phase: TEST } }
            layer { name: "c" type: "Sigmoid" bottom: "b" top: "c" exclude { phase: TRAIN } }
            """)
        XCTAssertEqual(model.nodes.map(\.name), ["b", "c"])
    }

    /// Issue 30: Caffe's Power with scale 0 is the constant shift^power
    /// (the sweep's power_scale_0 cases compare it with OpenCV); it is
    /// written as linear(0, constant), never as a unary layer whose scale
    /// 0 Core ML reads as 1.
    func testPowerWithScaleZeroIsAConstant() throws {
        let model = try convert("layer { name: \"p\" type: \"Power\" bottom: \"data\" top: \"p\" power_param { power: 2 scale: 0 shift: 3 } }")
        XCTAssertEqual(model.nodes.map(\.operation), [.activation(.linear(alpha: 0, beta: 9))])
    }

    /// Issue 30: a caffemodel giving a bias blob to a layer whose deploy
    /// says bias_term: false. Caffe refuses the pair; OpenCV adds the bias.
    func testABlobCountMismatchIsRefused() {
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: regressions.appendingPathComponent("bias_mismatch.prototxt").path,
                                                        weights: regressions.appendingPathComponent("bias_mismatch.caffemodel").path)) { error in
            XCTAssertTrue("\(error)".contains("bias_mismatch.prototxt:15: layer 'conv' (Convolution): Incompatible number of blobs: "
                                              + "the weights file has 2, the deploy definition's layer takes 1"), "\(error)")
        }
    }

    /// A 2 x 3 kernel stored 3 x 2 (the same count): Caffe and OpenCV refuse
    /// the shape; it was read in the wrong order.
    func testABlobOfTheRightCountButAnotherShapeIsRefused() {
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: regressions.appendingPathComponent("shape_mismatch.prototxt").path,
                                                        weights: regressions.appendingPathComponent("shape_mismatch.caffemodel").path)) { error in
            XCTAssertTrue("\(error)".contains("layer 'conv' (Convolution): weights (blob 0) has shape [2, 3, 3, 2], the deploy definition needs [2, 3, 2, 3]"),
                          "\(error)")
        }
    }

    /// Issue 30: tops "a\xFF" and "a\xFE" are two blobs to Caffe; decoded
    /// with replacement they were one, and the Eltwise summed one twice.
    func testNamesThatAreNotUTF8AreRefusedWithTheirLine() {
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: regressions.appendingPathComponent("nonutf8_tops.prototxt").path,
                                                        weights: regressions.appendingPathComponent("nonutf8_tops.caffemodel").path)) { error in
            XCTAssertTrue("\(error)".contains("nonutf8_tops.prototxt:3:1: the top 'a\\?' is not valid UTF-8"), "\(error)")
        }
    }

    /// Issue 30: the caffemodel's layer "conv\xFF" is not the deploy's
    /// "conv\u{FFFD}" (Caffe compares bytes): its weights are not taken.
    func testWeightsAreMatchedByteForByte() {
        XCTAssertThrowsError(try CaffeConverter.convert(deploy: regressions.appendingPathComponent("nonutf8_weights.prototxt").path,
                                                        weights: regressions.appendingPathComponent("nonutf8_weights.caffemodel").path)) { error in
            XCTAssertTrue("\(error)".contains("needs weights of shape [2, 3, 3, 3] (blob 0), but the weights have 0 blob(s)"), "\(error)")
        }
    }

    func testNamesEqualOnlyUpToUnicodeEquivalenceAreRefused() {
        let message = refusal("""
            layer { name: "a" type: "ReLU" bottom: "data" top: "caf\u{E9}" }
            layer { name: "b" type: "ReLU" bottom: "data" top: "cafe\u{301}" }
            """)
        XCTAssertTrue(message.contains("are different names to Caffe but the same Unicode text"), message)
    }

    /// Issue 30: a PriorBox top nothing reads is a network output in Caffe
    /// (a constant); it was silently left out of the model's outputs.
    func testAConstantNetworkOutputIsRefused() {
        let message = refusal("""
            layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 2 kernel_size: 3 } }
            layer { name: "prior" type: "PriorBox" bottom: "conv" bottom: "data" top: "prior" prior_box_param { min_size: 2 } }
            """)
        XCTAssertTrue(message.hasSuffix("the network output 'prior' holds PriorBox priors, a constant: a constant network output is not supported"), message)
    }
}
