import Foundation
@testable import KerasFrontend
import SweepSupport
import XCTest

/// The Keras attribute sweep (Tests/Fixtures/sweep/keras, Keras's own
/// outputs) written as ML Program packages (issue 36, `--convert-to
/// mlprogram`), read back and run: every case the converter takes is
/// written (at float16, all but the one whose constant is past float16's
/// range, normalization_variance_0's 1 / sqrt(0 + epsilon), refused by
/// name), and each computes what Keras did, at float32 within
/// 1e-4 * max(1, |ref|), at float16 within the norm-wise bound
/// k * 2^-11 * max(1, max |ref|) (`SweepFormat.program`).
final class ProgramSweepTests: XCTestCase {
    /// Cases whose operations the program writes since the Keras sweep's slice: a layer norm over a map's channels,
    /// a reshape in H, W, C order, exp, log_softmax's reductions and log, glu's channel slices, deconvolutions whose
    /// output runs past the full one (output_padding, a stride beyond the kernel).
    static let newlyWritten = ["layernorm", "layernorm_epsilon_0_5", "layernorm_no_center", "layernorm_no_scale", "keras2_layernorm",
                               "reshape_2d", "reshape_3d", "reshape_minus_1", "keras2_reshape", "activation_exponential", "activation_log_softmax",
                               "conv2d_act_log_softmax", "activation_glu", "conv2d_act_glu", "deconv_outpad_1_valid", "deconv_outpad_2_s3_k2_valid",
                               "deconv_s3_k1_valid", "deconv_s3_k2_same", "deconv_s3_k2_valid"]

    func sweep(float16: Bool) throws -> Set<String> {
        let results = try runAttributeSweep("keras", format: .program(float16: float16)) { folder, testCase in
            try KerasConverter.convert(model: folder.appendingPathComponent(testCase.files[0]).path)
        }
        var honoured: Set<String> = [], tooLarge: Set<String> = []
        for result in results {
            switch result.outcome {
            case .honoured: honoured.insert(result.testCase.name)
            case .refused(let message):
                XCTAssertFalse(message.contains("does not yet write"), "\(result.testCase.name): \(message)")
                if message.contains("float16's range") { tooLarge.insert(result.testCase.name) }
            case .wrong: break  // runAttributeSweep failed the test
            }
        }
        for name in Self.newlyWritten { XCTAssertTrue(honoured.contains(name), "\(name) is not computed as Keras does") }
        XCTAssertEqual(honoured.count + tooLarge.count, 297, "the cases the NeuralNetwork sweep honours")
        return tooLarge
    }

    func testKerasSweepAsFloat32Programs() throws {
        XCTAssertEqual(try sweep(float16: false), [])
    }

    func testKerasSweepAsFloat16Programs() throws {
        XCTAssertEqual(try sweep(float16: true), ["normalization_variance_0"])
    }
}
