import Foundation

// What several test targets share: where the repository and the check
// folder are, the layout change of TensorFlow and Keras references, and the
// tolerance every parity test uses.

/// The repository root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where tests leave the `.mlmodel` files they write for the independent
/// coremltools check (`scripts/check_mlmodels.py`, run by `scripts/test`):
/// `MLMODEL_CHECK_DIR`, or a temporary folder.
public let checkDirectory: URL = {
    let path = ProcessInfo.processInfo.environment["MLMODEL_CHECK_DIR"].flatMap { $0.isEmpty ? nil : $0 }
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("mlmodel-check-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return URL(fileURLWithPath: path)
}()

/// [H, W, C] values (TensorFlow's and Keras's layout) as [C, H, W].
public func chw(_ values: [Float], _ h: Int, _ w: Int, _ c: Int) -> [Float] {
    var result = [Float](repeating: 0, count: values.count)
    for y in 0..<h { for x in 0..<w { for k in 0..<c { result[(k * h + y) * w + x] = values[(y * w + x) * c + k] } } }
    return result
}

/// The value of `ours` furthest outside the parity tolerance,
/// |ours - ref| <= 1e-4 * max(1, |ref|), or nil if all are inside (NaN is
/// always outside). Compares the common prefix; callers check the counts.
public func worstMismatch(_ ours: [Float], _ reference: [Float]) -> (index: Int, ours: Float, reference: Float)? {
    var worst = (index: -1, excess: Float(0))
    for (index, (a, b)) in zip(ours, reference).enumerated() {
        let excess = abs(a - b) - 1e-4 * max(1, abs(b))
        if !(excess <= 0) && (worst.index < 0 || !(excess <= worst.excess)) { worst = (index, excess) }
    }
    return worst.index < 0 ? nil : (worst.index, ours[worst.index], reference[worst.index])
}

/// A fresh empty folder for one test.
public func temporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolkit-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
