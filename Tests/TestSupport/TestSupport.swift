import Foundation

// What several test targets share: where the repository and the check
// folder are, the layout change of TensorFlow and Keras references, and the
// tolerance every parity test uses.

/// The repository root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Where tests leave the `.mlmodel` files they write for the independent
/// coremltools check (`scripts/check_mlmodels.py`, run by `scripts/test`):
/// `MLMODEL_CHECK_DIR`, or a folder in the session folder.
public let checkDirectory: URL = {
    if let path = ProcessInfo.processInfo.environment["MLMODEL_CHECK_DIR"], !path.isEmpty {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return URL(fileURLWithPath: path)
    }
    let url = sessionFolder.appendingPathComponent("mlmodel-check")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()

/// Where SwiftPM put the executables: beside the test bundle.
public let productsDirectory: URL = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("coreml-convert").path) { return url }
    }
    return repositoryRoot.appendingPathComponent(".build/debug")
}()

/// Every temporary file of one test process lives in this folder, removed
/// when the process exits, unless `TOOLKIT_KEEP_TEST_FILES` is set
/// (`scripts/verify/apple_validator.sh` keeps them to validate every model
/// the tests wrote). A crashed or killed run leaves it behind.
public let sessionFolder: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("toolkit-tests-\(getpid())-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    if ProcessInfo.processInfo.environment["TOOLKIT_KEEP_TEST_FILES"] == nil {
        atexit { try? FileManager.default.removeItem(at: sessionFolder) }
    }
    return url
}()

/// [H, W, C] values (TensorFlow's and Keras's layout) as [C, H, W].
public func chw(_ values: [Float], _ h: Int, _ w: Int, _ c: Int) -> [Float] {
    var result = [Float](repeating: 0, count: values.count)
    for y in 0..<h { for x in 0..<w { for k in 0..<c { result[(k * h + y) * w + x] = values[(y * w + x) * c + k] } } }
    return result
}

/// The value of `ours` furthest outside the parity tolerance,
/// |ours - ref| <= 1e-4 * max(1, |ref|), or nil if all are inside (NaN against
/// a number is outside; NaN against NaN agrees). Compares the common prefix; callers check the counts.
public func worstMismatch(_ ours: [Float], _ reference: [Float]) -> (index: Int, ours: Float, reference: Float)? {
    var worst = (index: -1, excess: Float(0))
    for (index, (a, b)) in zip(ours, reference).enumerated() {
        // The same infinity, or NaN on both sides, is agreement.
        if a == b || (a.isNaN && b.isNaN) { continue }
        let excess = abs(a - b) - 1e-4 * max(1, abs(b))
        if !(excess <= 0) && (worst.index < 0 || !(excess <= worst.excess)) { worst = (index, excess) }
    }
    return worst.index < 0 ? nil : (worst.index, ours[worst.index], reference[worst.index])
}

/// A fresh empty folder for one test, inside `sessionFolder`.
public func temporaryFolder() throws -> URL {
    let url = sessionFolder.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `coreml-convert` (beside the test bundle) with `arguments` in a
/// child process, its standard output discarded: its exit status and what
/// it wrote to standard error.
public func runConvert(_ arguments: [String]) throws -> (status: Int32, standardError: String) {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent("coreml-convert")
    process.arguments = arguments
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}
