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

    /// What the environment and the options hand the kernels, at their
    /// extremes: an OPENBLAS_CORETYPE with ESC, quotes and a newline is kept
    /// but printed escaped; OMP_NUM_THREADS at 2^63 - 1 (libgomp: "out of
    /// memory" at the first convolution) leaves the convolutions to the
    /// runtime's own kernels, which still compute OpenCV's outputs; a
    /// --benchmark of 2^31 runs is refused instead of running for days.
    func testExtremeSettingsAreSaidOrRefused() throws {
        let hostile = "\u{1B}[2J\"q\nx"
        let version = try ProgramRunner.run("coreml-predict", ["--version"], environment: ["OPENBLAS_CORETYPE": hostile])
        XCTAssertEqual(version.status, 0, version.standardError)
        XCTAssertFalse(version.standardOutput.contains("\u{1B}"), version.standardOutput)
        XCTAssertTrue(version.standardOutput.contains("OPENBLAS_CORETYPE=\\u{1B}[2J\"q\\nx from the environment, kept"), version.standardOutput)

        let out = try temporaryFolder()
        let threads = try ProgramRunner.run("coreml-predict", [chain.appendingPathComponent("model.mlmodel").path,
                                                               "--input", "x=" + chain.appendingPathComponent("input_x.npy").path,
                                                               "--output-npy", out.path, "--benchmark", "1"],
                                            environment: ["OMP_NUM_THREADS": "9223372036854775807"])
        XCTAssertEqual(threads.status, 0, threads.standardError)
        XCTAssertTrue(threads.standardError.contains("convolutions: the runtime's own (im2col and the matrix products): "
                                                     + "OMP_NUM_THREADS=9223372036854775807 asks oneDNN for more than 4096 threads"),
                      threads.standardError)
        let reference = try readFloat32Npy(chain.appendingPathComponent("output_prob.npy"))
        for (a, b) in zip(try readFloat32Npy(out.appendingPathComponent("prob.npy")), reference) {
            XCTAssertLessThanOrEqual(abs(a - b), 1e-4 * max(1, abs(b)))
        }

        for runs in ["2147483648", "9223372036854775807", "0", "-1"] {
            let result = try ProgramRunner.run("coreml-predict", [chain.appendingPathComponent("model.mlmodel").path,
                                                                  "--input", "x=" + chain.appendingPathComponent("input_x.npy").path,
                                                                  "--benchmark", runs], timeout: 30)
            XCTAssertEqual(result.status, 64, result.standardError)
            XCTAssertTrue(result.standardError.hasPrefix("error: --benchmark takes 1 to 100000 runs, not \(runs)\n"), result.standardError)
        }
    }
}
