// Not Foundation: with it, Swift 6 refuses C's `stdout` as shared mutable state.
#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
@preconcurrency import Darwin
#endif

/// Standard input, output and error, as the program was started with
/// them, and what became of what it printed.
public enum StandardStreams {
    /// Opens /dev/null on each of them that is closed (`program >&-`):
    /// else the first file the program opens takes its number, and what it
    /// prints goes into that file (a model being written). Each is opened
    /// read-only, so a print to stdout fails (EBADF) and is reported
    /// (`finish`) rather than vanishing. Call first in `main`.
    public static func reserve() {
        for descriptor: Int32 in [0, 1, 2] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    /// Writes `text` on stderr now, as is (a warning, a note, a progress
    /// line). A stderr that cannot take it (/dev/full, closed) loses the
    /// text and nothing else: Foundation's `FileHandle.standardError.write`
    /// stops the program there (SIGILL).
    public static func printError(_ text: String) {
        fputs(text, stderr)
        fflush(stderr)
        clearerr(stderr)
    }

    /// Prints `output` on stdout after whatever the program printed there,
    /// flushes it, prints `errors` on stderr, and returns `status`; or 1,
    /// with one `error: cannot write to stdout` line in place of `errors`,
    /// when a write to stdout failed, now or earlier (closed, /dev/full, a
    /// full disk), which would else end the program with 0 and its output
    /// lost. A status that already says an error keeps its line.
    public static func finish(output: String, errors: String, status: Int32) -> Int32 {
        if !output.isEmpty { fputs(output, stdout) }
        let flushed = fflush(stdout) == 0
        let reason = errno
        // The error flag stays set after a write that failed earlier (predict flushes each result).
        let failed = !flushed || ferror(stdout) != 0
        var errors = errors, status = status
        if failed && status == 0 {
            errors = "error: cannot write to stdout" + (flushed ? "" : ": \(String(cString: strerror(reason)))") + "\n"
            status = 1
        }
        fflush(nil)  // nil flushes every stdio stream
        if !errors.isEmpty { fputs(errors, stderr) }
        return status
    }
}
