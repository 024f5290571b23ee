/// Told how far long work is: a program installs one (its progress line on
/// a terminal, `CLI.ProgressLine`); the libraries know nothing of terminals.
public protocol WorkProgressListener: AnyObject, Sendable {
    /// `done` of `total` `unit` of `task` are done ("quantizing weights",
    /// 12 of 57 "tensors"); called from any thread.
    func progress(_ task: String, done: Int, total: Int, unit: String)
    /// Something else is about to be written to the terminal (a result, an
    /// error line): the line goes until the next report draws it again.
    func interrupt()
    /// The task reported last has ended (or failed): its line goes.
    func finished()
}

/// Where long work (weight quantization, the fidelity report, predicting a
/// folder of images) says how far it is. Nothing happens while no listener
/// is set, which is the case in the libraries' tests and with --quiet or
/// --json.
public enum WorkProgress {
    private static let lock = Lock()
    nonisolated(unsafe) private static var current: (any WorkProgressListener)?

    /// The listener told from now on (nil: none).
    public static var listener: (any WorkProgressListener)? {
        get { lock.locked { current } }
        set { lock.locked { current = newValue } }
    }

    /// `done` of `total` `unit` of `task` are done.
    public static func report(_ task: String, done: Int, total: Int, unit: String) {
        listener?.progress(task, done: done, total: total, unit: unit)
    }

    /// Clears the line before other output; the next report draws it again.
    public static func interrupt() {
        listener?.interrupt()
    }

    /// The task ended (or failed).
    public static func finished() {
        listener?.finished()
    }
}
