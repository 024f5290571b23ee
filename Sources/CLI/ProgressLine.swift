import Foundation
import Naming
import Threads
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one line on stderr that says what long work runs and how far it is
/// ("quantizing weights: 12/57 tensors"), redrawn in place with `\r` and
/// erased with `ESC[K`. It appears only once a task has run `delay` seconds
/// (work done sooner shows nothing), is at most `width` columns wide, and
/// is cleared when the task ends, fails or other output comes, so the next
/// line starts at the left edge. A program draws it only on a terminal
/// (`forStandardError`); the clock and the writer are injected for tests.
public final class ProgressLine: WorkProgressListener, @unchecked Sendable {
    /// Seconds a task runs before its line appears.
    public static let defaultDelay = 1.0
    /// The widest line drawn, in columns (the project's bound on output).
    public static let maximumWidth = 100
    /// Seconds between two redraws (the last count of a task is always drawn).
    static let redrawInterval = 0.1

    private let lock = Lock()
    private let clock: () -> Double
    private let delay: Double
    private let width: Int
    private let write: (String) -> Void
    /// The task being reported and when its first report came.
    private var task: (name: String, start: Double)?
    private var isShown = false
    private var lastDrawn = -Double.infinity

    /// - Parameters:
    ///   - clock: seconds on a monotonic clock.
    ///   - width: the widest line in columns (at most `maximumWidth`).
    ///   - write: where the line's bytes go (stderr).
    public init(clock: @escaping () -> Double = ProgressLine.monotonicSeconds, delay: Double = ProgressLine.defaultDelay,
                width: Int = ProgressLine.maximumWidth, write: @escaping (String) -> Void) {
        self.clock = clock
        self.delay = delay
        self.width = max(10, min(width, Self.maximumWidth))
        self.write = write
    }

    /// A line on stderr when stderr is a terminal that understands `ESC[K`
    /// (TERM is not `dumb`) and the run prints text (`quiet`: --quiet or
    /// --json given); nil otherwise, so a file or a pipe gets no byte of it.
    public static func forStandardError(quiet: Bool, isTerminal: Bool = Terminal.isInteractive(.stderr),
                                        environment: [String: String] = ProcessInfo.processInfo.environment) -> ProgressLine? {
        guard !quiet, isTerminal, environment["TERM"] != "dumb" else { return nil }
        // One column short of a narrower terminal's width, so the line never wraps.
        let columns = terminalColumns(of: Terminal.Stream.stderr.fileDescriptor).map { $0 - 1 } ?? maximumWidth
        clearsLineOnInterrupt()
        // COREML_PROGRESS_DELAY: seconds before a task's line appears (0: at once), for slow terminals and the tests.
        let delay = environment["COREML_PROGRESS_DELAY"].flatMap(Double.init).flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        return ProgressLine(delay: delay ?? defaultDelay, width: columns) { text in StandardStreams.printError(text) }
    }

    public func progress(_ name: String, done: Int, total: Int, unit: String) {
        lock.locked {
            let now = clock()
            if task?.name != name { task = (name, now) }  // a new task has its own delay
            guard now - task!.start >= delay else { return }
            guard done >= total || now - lastDrawn >= Self.redrawInterval || !isShown else { return }
            let text = TextEscaping.line("\(name): \(done)/\(total) \(unit)")
            write("\r\u{1B}[K" + String(text.prefix(width)))
            isShown = true
            lastDrawn = now
        }
    }

    public func interrupt() {
        lock.locked { clear() }
    }

    public func finished() {
        lock.locked {
            clear()
            task = nil
        }
    }

    private func clear() {
        guard isShown else { return }
        write("\r\u{1B}[K")
        isShown = false
        lastDrawn = -.infinity
    }

    /// Ctrl-C (SIGINT) or SIGTERM first erase the line on stderr, then end
    /// the program as they would have (the default action, raised again),
    /// so that the shell's prompt does not follow a stale count.
    static func clearsLineOnInterrupt() {
        for number in [SIGINT, SIGTERM] {
            signal(number) { number in
                eraseStandardErrorLine()
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    /// The terminal's width in columns (TIOCGWINSZ); nil when it does not say.
    static func terminalColumns(of descriptor: Int32) -> Int? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Seconds since an arbitrary start, never going back.
    public static func monotonicSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// Writes `\r ESC [ K` to stderr from a signal handler: async-signal-safe,
/// write(2) of bytes on the stack.
private func eraseStandardErrorLine() {
    var erase: (UInt8, UInt8, UInt8, UInt8) = (13, 27, 91, 75)
    _ = withUnsafeBytes(of: &erase) { write(2, $0.baseAddress, 4) }
}
