import Foundation
import ModelFormat
import XCTest

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where tests leave the `.mlmodel` files they write for the independent
/// coremltools check (`scripts/check_mlmodels.py`, run by `scripts/test`).
/// Set by `MLMODEL_CHECK_DIR`; a temporary folder otherwise.
let checkDirectory: URL = {
    let url: URL
    if let path = ProcessInfo.processInfo.environment["MLMODEL_CHECK_DIR"], !path.isEmpty {
        url = URL(fileURLWithPath: path)
    } else {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("mlmodel-check-\(getpid())")
    }
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// A fresh empty folder for one test.
func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("coreml-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Fixed pseudo-random weights.
func randomWeights(_ count: Int, seed: UInt64, scale: Float = 1) -> Weights {
    var random = SplitMix64(seed: seed)
    return Weights((0..<count).map { _ in random.nextFloat(in: -scale...scale) })
}
