#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Naming

/// Several files written as one, all or nothing: a model and its classes,
/// a header and its implementation, a prediction's arrays and picture.
///
/// Every target is checked first (as `AtomicFile.checkTarget`: absent, a
/// regular file or a link, never one of the run's inputs), before anything
/// is written. Each file is then written to a temporary `.NAME.XXXXXX` in
/// its target's folder (`write`), and only when every file is complete
/// does `commit` rename them into place, one after another. A failure
/// before the commit, a full disk included, replaces nothing and leaves no
/// temporary file (nor a folder `createFolder` made); so does dropping the
/// set without committing, and SIGINT, SIGTERM or SIGHUP meanwhile.
///
/// The window: the renames are separate system calls. Their files are
/// complete and on the same file system, so a rename fails only when the
/// folder itself does (read-only, removed, an I/O error); then the targets
/// renamed before it stay replaced, the rest are not, and the error names
/// both. A SIGKILL or a power cut between two renames likewise leaves the
/// first ones new. When any target exists, every file of the set is synced
/// to disk before the first rename, so that a power cut after a rename
/// never leaves a partial file in place; a set of new files only is left
/// to the system's write-back, as `AtomicFile` leaves one.
public final class AtomicFileSet {
    /// The files of the set, in the order they are renamed into place.
    public let targets: [String]
    private let inputs: [String]
    /// Whether the files are synced before the renames (a target exists).
    private var syncs: Bool
    private var staged: [String: Staged] = [:]
    /// Folders `createFolder` made, removed again unless the set is committed.
    private var createdFolders: [String] = []
    private var finished = false

    private struct Staged {
        let temporary: String
        let cleanupSlot: Int32
        var synced: Bool
    }

    /// A set that will write `targets` (distinct paths), none of them one
    /// of `inputs`. Every target is checked now, before any is written.
    /// - Throws: `FileError` naming the first target that may not be
    ///   replaced, or two targets that are the same file (links).
    public init(targets: [String], inputs: [String] = []) throws {
        precondition(Set(targets).count == targets.count, "a file set names a target twice")
        self.targets = targets
        self.inputs = inputs
        syncs = false
        try checkTargets()
        syncs = targets.contains { AtomicFile.commit(for: $0) == .synced }
    }

    deinit {
        discard()
    }

    /// Creates `folder` for targets in it when it is missing (and its
    /// missing parents too, with `intermediates`); the folders made are
    /// removed again if the set is not committed.
    /// - Throws: `FileError` when it cannot be made or is not a folder.
    public func createFolder(_ folder: String, intermediates: Bool = false) throws {
        var missing: [String] = []
        var current = folder
        while true {
            var info = stat()
            if Self.withPath(current, { stat($0, &info) }) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw FileError(path: current, message: "is not a folder")
                }
                break
            }
            missing.append(current)
            let parent = AtomicFile.parentFolder(of: current)
            guard intermediates, parent != current, parent != ".", parent != "/" else { break }
            current = parent
        }
        for path in missing.reversed() {
            guard Self.withPath(path, { mkdir($0, 0o777) }) == 0 || errno == EEXIST else {
                throw FileError(path: path, errno: errno, action: "cannot create the folder")
            }
            createdFolders.append(path)
        }
    }

    /// Writes the file for `path`, one of `targets`, with the content
    /// `write` produces on a stdio stream (its `commit` says whether the
    /// file will be synced), to a temporary file next to it, complete and
    /// closed when this returns, but not yet in place. A failure discards
    /// the whole set: nothing is replaced and no temporary file is left.
    /// - Returns: the temporary file's path, to read the file back.
    /// - Throws: `FileError` for file-system failures, or what `write` throws.
    @discardableResult
    public func write(to path: String, _ write: (_ stream: UnsafeMutablePointer<FILE>, _ commit: AtomicFile.Commit) throws -> Void) throws -> String {
        precondition(!finished, "a file set written after its commit or discard")
        precondition(targets.contains(path) && staged[path] == nil, "a file set writes a target it does not name, or one twice")
        do {
            return try stage(path, write)
        } catch {
            discard()
            throw error
        }
    }

    /// Writes `bytes` as the file for `path` (as `write(to:_:)`).
    @discardableResult
    public func write(_ bytes: some Collection<UInt8>, to path: String) throws -> String {
        try write(to: path) { stream, _ in
            let array = Array(bytes)
            guard fwrite(array, 1, array.count, stream) == array.count else {
                throw FileError(path: path, errno: errno, action: "cannot write")
            }
        }
    }

    /// Renames every written file into place, in the order of `targets`,
    /// after checking every target again. Every target must be written.
    /// - Throws: `FileError`: a target that may no longer be replaced
    ///   (nothing replaced), a failed sync (nothing replaced), or a failed
    ///   rename (the targets before it replaced, as the message says).
    public func commit() throws {
        precondition(!finished, "a file set committed after its commit or discard")
        precondition(staged.count == targets.count, "a file set committed before all its files were written")
        do {
            try checkTargets()
            // A target that appeared since the set began is replaced safely too.
            if !syncs, targets.contains(where: { AtomicFile.commit(for: $0) == .synced }) {
                syncs = true
                for target in targets where !staged[target]!.synced {
                    try sync(staged[target]!.temporary, target: target)
                    staged[target]!.synced = true
                }
            }
        } catch {
            discard()
            throw error
        }
        for (index, target) in targets.enumerated() {
            let file = staged[target]!
            guard Self.withPath(file.temporary, { from in Self.withPath(target) { rename(from, $0) } }) == 0 else {
                let code = errno
                let replaced = targets[..<index]
                discard()
                let note = replaced.isEmpty ? "" : " (already replaced: \(replaced.joined(separator: ", ")))"
                throw FileError(path: target, message: "cannot replace: \(String(cString: strerror(code)))\(note)")
            }
            fileio_forget(file.cleanupSlot)
            staged[target] = nil
        }
        createdFolders = []
        finished = true
    }

    /// Removes every temporary file written so far and the folders the set
    /// made (when empty): nothing is replaced. The set cannot be used
    /// after; after a commit this does nothing.
    public func discard() {
        guard !finished else { return }
        for file in staged.values {
            Self.withPath(file.temporary) { _ = unlink($0) }
            fileio_forget(file.cleanupSlot)
        }
        staged = [:]
        for folder in createdFolders.reversed() { Self.withPath(folder) { _ = rmdir($0) } }
        createdFolders = []
        finished = true
    }

    private func checkTargets() throws {
        for target in targets { try AtomicFile.checkTarget(target, inputs: inputs) }
        // Two spellings of one name (out//x, a folder's link): the second rename would undo the first.
        var entries: [String: String] = [:]
        for target in targets {
            var folder = stat()
            guard Self.withPath(AtomicFile.parentFolder(of: target), { stat($0, &folder) }) == 0 else { continue }
            let name = FileSystem.name(of: target)
            let entry = "\(folder.st_dev) \(folder.st_ino) \(name)"
            if let other = entries[entry] {
                throw FileError(path: target, message: "is the same file as \(other), another output of this run")
            }
            entries[entry] = target
        }
    }

    private func stage(_ path: String, _ write: (UnsafeMutablePointer<FILE>, AtomicFile.Commit) throws -> Void) throws -> String {
        let existing = try AtomicFile.checkTarget(path, inputs: inputs)
        let made = try AtomicFile.makeTemporary(for: path, replacing: existing)
        var kept = false
        defer {
            if !kept {
                unlink(made.template)
                fileio_forget(made.cleanupSlot)
            }
        }
        let (temporary, cleanupSlot) = (made.temporary, made.cleanupSlot)
        let stream = try AtomicFile.writeStream(made.descriptor, path: path) { try write($0, syncs ? .synced : .cached) }
        guard !syncs || fsync(fileno(stream)) == 0 else {
            let code = errno
            fclose(stream)
            throw FileError(path: path, errno: code, action: "cannot write")
        }
        guard fclose(stream) == 0 else { throw FileError(path: path, errno: errno, action: "cannot write") }
        staged[path] = Staged(temporary: temporary, cleanupSlot: cleanupSlot, synced: syncs)
        kept = true
        return temporary
    }

    /// Calls `body` with `path` as the C string the system calls take, its
    /// exact bytes (`PathBytes`): the one place (with `path(cString:)`)
    /// where the set turns a path into bytes and back.
    private static func withPath<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try PathBytes.withCString(path, body)
    }

    private static func path(cString: UnsafePointer<CChar>) -> String {
        PathBytes.string(cString: cString)
    }

    /// Syncs the complete temporary file of `target` to disk.
    private func sync(_ temporary: String, target: String) throws {
        let descriptor = Self.withPath(temporary) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw FileError(path: target, errno: errno, action: "cannot write") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileError(path: target, errno: errno, action: "cannot write") }
    }
}
