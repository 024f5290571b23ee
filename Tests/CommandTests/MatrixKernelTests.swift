import Foundation
import TestSupport
import XCTest

/// The CPU kernels of the runtime's matrix products (OpenBLAS's core type,
/// chosen from cpuid before the library loads): said by `--version`, never
/// taken from an environment that already chose, and the generic (SSE)
/// kernels kept for CPUs the choice does not cover compute the same.
/// The in-process runtime tests run the kernels chosen for this CPU.
final class MatrixKernelTests: XCTestCase {
    let chain = repositoryRoot.appendingPathComponent("Tests/Fixtures/runtime/chain_caffe")

    func testVersionSaysWhichKernelsRunAndWhy() throws {
        // An empty value counts as unset.
        let chosen = try ProgramRunner.run("coreml-predict", ["--version"], environment: ["OPENBLAS_CORETYPE": ""])
        XCTAssertEqual(chosen.status, 0, chosen.standardError)
        XCTAssertTrue(chosen.standardOutput.contains("matrix products: OpenBLAS "), chosen.standardOutput)
        XCTAssertTrue(chosen.standardOutput.contains(" kernels ("), chosen.standardOutput)
        XCTAssertTrue(chosen.standardOutput.contains(" thread"), chosen.standardOutput)
        XCTAssertFalse(chosen.standardOutput.contains("from the environment"), chosen.standardOutput)
        // Left to OpenBLAS or chosen here, never older kernels than the CPU runs.
        XCTAssertFalse(chosen.standardOutput.contains("older than this CPU"), chosen.standardOutput)

        let preset = try ProgramRunner.run("coreml-predict", ["--version"], environment: ["OPENBLAS_CORETYPE": "Sandybridge"])
        XCTAssertEqual(preset.status, 0, preset.standardError)
        XCTAssertTrue(preset.standardOutput.contains("Sandybridge kernels (OPENBLAS_CORETYPE=Sandybridge from the environment, kept)"),
                      preset.standardOutput)
    }

    func testTheGenericKernelsComputeWhatOpenCVDid() throws {
        for core in ["Prescott", ""] {
            let out = try temporaryFolder()
            let result = try ProgramRunner.run("coreml-predict", [chain.appendingPathComponent("model.mlmodel").path,
                                                                  "--input", "x=" + chain.appendingPathComponent("input_x.npy").path,
                                                                  "--output-npy", out.path, "--benchmark", "1"],
                                               environment: ["OPENBLAS_CORETYPE": core])
            XCTAssertEqual(result.status, 0, result.standardError)
            if core == "Prescott" {
                XCTAssertTrue(result.standardError.contains("Prescott kernels (OPENBLAS_CORETYPE=Prescott from the environment, kept)"),
                              result.standardError)
            }
            let reference = try readFloat32Npy(chain.appendingPathComponent("output_prob.npy"))
            let ours = try readFloat32Npy(out.appendingPathComponent("prob.npy"))
            XCTAssertEqual(ours.count, reference.count)
            for (a, b) in zip(ours, reference) { XCTAssertLessThanOrEqual(abs(a - b), 1e-4 * max(1, abs(b)), core) }
        }
    }

    /// A core type set in the environment whose kernels this CPU cannot run
    /// (AVX-512 ones here, unless /proc/cpuinfo lists avx512f) is one clear
    /// error, not an illegal instruction; on an AVX-512 CPU it is kept.
    func testACoreTheCPUCannotRunIsRefused() throws {
        let flags = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ").map(String.init) } ?? []
        let result = try ProgramRunner.run("coreml-predict", [chain.appendingPathComponent("model.mlmodel").path,
                                                              "--input", "x=" + chain.appendingPathComponent("input_x.npy").path],
                                           environment: ["OPENBLAS_CORETYPE": "SkylakeX", "SWIFT_BACKTRACE": "enable=no"])
        if flags.contains("avx512f") {
            XCTAssertEqual(result.status, 0, result.standardError)
        } else {
            XCTAssertEqual(result.status, 1, result.standardError)
            XCTAssertTrue(result.standardError.contains("OPENBLAS_CORETYPE=SkylakeX asks OpenBLAS for AVX-512 kernels, which this CPU cannot run"),
                          result.standardError)
            XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, result.standardError)
        }
    }
}
