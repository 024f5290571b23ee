#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Naming

/// A helper program (Graphviz's `dot`) run to completion with a time limit:
/// it never outlives the call, and SIGINT, SIGTERM or SIGHUP to this
/// program kill it too.
public enum ChildProcess {
    /// What the program did.
    public struct Result: Sendable {
        /// Its exit status (128 + n when a signal ended it).
        public var status: Int32
        public var output: [UInt8]
        public var errors: [UInt8]
    }

    /// Why it did not run to completion.
    public enum Failure: Error, Equatable, Sendable {
        /// It ran past `timeout` seconds and was killed.
        case timedOut
        /// It wrote more than the output limit and was killed.
        case tooMuchOutput
        /// It could not be started (or a pipe failed): errno.
        case system(Int32)
    }

    /// Runs the program at `path` with `arguments`, writing `input` to its
    /// standard input and collecting its standard output and error.
    /// - Throws: `Failure`.
    public static func run(_ path: String, arguments: [String], input: [UInt8] = [], timeout: Double,
                           maximumOutput: Int = 1 << 30) throws(Failure) -> Result {
        fileio_install_cleanup_handlers()
        let argv = ([path] + arguments).map { PathBytes.withCString($0) { strdup($0) } } + [nil]
        defer { for pointer in argv { free(pointer) } }
        // At most Int32.max ms (24 days); a NaN or negative timeout is no time.
        let milliseconds = timeout > 0 ? Int32((min(timeout, 2_000_000) * 1000).rounded(.up)) : 0
        let result = input.withUnsafeBufferPointer { bytes in
            argv.withUnsafeBufferPointer { argv in
                bytes.withMemoryRebound(to: CChar.self) { text in
                    fileio_run_child(argv.baseAddress, text.baseAddress, text.count, milliseconds, maximumOutput)
                }
            }
        }
        defer {
            free(result.output)
            free(result.errors)
        }
        switch result.outcome {
        case 0: break
        case 1: throw .timedOut
        case 3: throw .tooMuchOutput
        default: throw .system(result.error)
        }
        let bytes = { (pointer: UnsafeMutablePointer<CChar>?, count: Int) in
            pointer.map { Array(UnsafeRawBufferPointer(start: $0, count: count).bindMemory(to: UInt8.self)) } ?? []
        }
        let status = result.status
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, which Swift does not import.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Result(status: exit, output: bytes(result.output, result.output_length),
                      errors: bytes(result.errors, result.errors_length))
    }
}
