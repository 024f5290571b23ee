#if canImport(Glibc)
import Glibc
#endif
import FuzzSupportC

// What every fuzz target shares: handing control to libFuzzer, a scratch
// file for readers that take paths, the repository's fixtures.

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Wall-clock milliseconds a forked child may run before SIGALRM ends it (0:
/// no limit); `FUZZ_CHILD_MS`, default 0. scripts/fuzz sets 100 for
/// fuzz-hdf5: the HDF5 reader waits up to 5 s for a child that spins in
/// libhdf5 (finding 2 of RESULTS.md), which would make the fuzzer call such
/// an input a timeout instead of looking for others.
let forkedChildMilliseconds: UInt32 = getenv("FUZZ_CHILD_MS").flatMap { UInt32(String(cString: $0)) } ?? 0

/// The signature of `LLVMFuzzerTestOneInput`.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer's driver (flags, corpus, mutation loop) on `callback`:
/// the body of each target's `<target>_main`, which SwiftPM links as `main`.
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                         _ callback: FuzzCallback) -> CInt {
    fuzz_guard_forked_children(forkedChildMilliseconds)
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, callback)
}

/// The input bytes as a buffer (empty for a nil pointer).
public func inputBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
}

/// One private directory per process for readers that take a path; the
/// files in it are rewritten for every input, and removed at exit.
public final class ScratchFiles: @unchecked Sendable {
    public static let shared = ScratchFiles()
    public let directory: String

    private init() {
        // Memory-backed when there is a /dev/shm: several times faster than disk.
        let base = getenv("FUZZ_SCRATCH").map { String(cString: $0) }
            ?? (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        var template = Array("\(base)/model-fuzz-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { buffer in
            guard let made = mkdtemp(buffer.baseAddress!) else { fatalError("mkdtemp failed: \(errno)") }
            return String(cString: made)
        }
        atexit { ScratchFiles.shared.removeAll() }
    }

    /// Writes `bytes` to the file `name` in the scratch directory; its path.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer, name: String) -> String {
        let path = "\(directory)/\(name)"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0, "cannot create \(path)")
        var done = 0
        while done < bytes.count {
            let written = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            precondition(written > 0, "cannot write \(path)")
            done += written
        }
        close(fd)
        return path
    }

    public func write(_ bytes: [UInt8], name: String) -> String {
        bytes.withUnsafeBytes { write($0, name: name) }
    }

    func removeAll() {
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink("\(directory)/\(name)") }
            }
            closedir(dir)
        }
        rmdir(directory)
    }
}

/// The repository this package lives in (for fixed fixture files).
public let repositoryRoot: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
    return path
}()

/// The bytes of a repository file; stops the fuzzer if it is missing.
public func fixture(_ relativePath: String) -> [UInt8] {
    let path = "\(repositoryRoot)/\(relativePath)"
    guard let file = fopen(path, "rb") else { fatalError("missing fixture \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return bytes
}

/// For targets that fuzz one file of a fixture's pair (a definition and its
/// weights): the first input byte picks the pair (low 7 bits, modulo
/// `pairs`) and the side (high bit clear: the weights are fuzzed; set: the
/// definition), the rest is the fuzzed file's content. nil for an empty input.
public func pickedSide(_ bytes: UnsafeRawBufferPointer, pairs: Int) -> (pair: Int, definitionFuzzed: Bool, rest: UnsafeRawBufferPointer)? {
    guard let selector = bytes.first else { return nil }
    return (Int(selector & 0x7F) % pairs, selector & 0x80 != 0, UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
}
