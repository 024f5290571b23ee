#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Naming
import Dispatch

/// Writes a file atomically: the content goes to a temporary file in the
/// target's folder, which is flushed and renamed over the target only when
/// everything succeeded. A failed write leaves no partial file and never
/// touches an existing one; SIGINT, SIGTERM or SIGHUP during the write
/// remove the temporary file before the program ends (a SIGKILL cannot be
/// caught: it leaves `.NAME.XXXXXX` next to the target).
///
/// The target must be absent, a regular file or a symbolic link (the link
/// is replaced, the file it points to untouched): a FIFO, a device or a
/// folder is refused, and so is any of the files the run reads (`inputs`).
/// A replaced file's permissions carry over to the new one.
///
/// When the target exists, the new file is also synced to disk before the
/// rename, so that not even a power cut can leave the old file replaced by
/// a partial new one. A new file is left to the system's write-back, as
/// `cp` leaves a copy: waiting for the disk there would protect nothing
/// that existed, and for a large model it takes about as long as writing
/// the file (BENCHMARKS.md times conversions both ways).
public enum AtomicFile {
    /// How a written file is committed.
    public enum Commit: Sendable {
        /// It replaces a file: synced to disk before the rename.
        case synced
        /// It is new: renamed into place once complete.
        case cached
    }

    /// Creates `path` with the content `write` produces on a stdio stream.
    /// `write` also gets how the file is to be committed (a writer of a
    /// large file can start the disk early when it is to be synced).
    /// `beforeCommit`, if given, is called with the path of the complete
    /// temporary file before it is renamed into place (while the file is
    /// synced, when it is), to read it back, say; if it throws, the file is
    /// not committed. `inputs` are the files the run reads: the target must
    /// not be one of them.
    /// - Throws: `FileError` for file-system failures (and a target that may
    ///   not be replaced), or whatever `write` or `beforeCommit` throws.
    public static func write(to path: String, inputs: [String] = [], beforeCommit: ((String) throws -> Void)? = nil,
                             _ write: (_ stream: UnsafeMutablePointer<FILE>, _ commit: Commit) throws -> Void) throws {
        let existing = try checkTarget(path, inputs: inputs)
        let commit = Self.commit(for: path)
        let made = try makeTemporary(for: path, replacing: existing)
        var committed = false
        defer {
            if !committed { unlink(made.template) }
            fileio_forget(made.cleanupSlot)
        }
        let stream = try writeStream(made.descriptor, path: path) { try write($0, commit) }
        let temporary = made.temporary
        let template = made.template
        // Checked again: a file that appeared meanwhile is replaced safely too.
        let syncs = commit == .synced || Self.commit(for: path) == .synced
        let finished = Self.finish(fileno(stream), syncing: syncs, beforeCommit.map { body in { try body(temporary) } })
        let closed = fclose(stream) == 0
        let closeError = errno
        switch finished {
        case .failure(let error): throw error
        case .success(let code?): throw FileError(path: path, errno: code, action: "cannot write")
        case .success(nil): guard closed else { throw FileError(path: path, errno: closeError, action: "cannot write") }
        }
        _ = try checkTarget(path, inputs: inputs)
        guard PathBytes.withCString(path, { rename(template, $0) }) == 0 else {
            throw FileError(path: path, errno: errno, action: "cannot replace")
        }
        committed = true
    }

    /// A new temporary file next to `path` (`.NAME.XXXXXX`, its folder and
    /// name as their exact bytes), close-on-exec, registered for removal
    /// by the signal handlers, with the permissions the target will have.
    /// The caller unlinks `template` unless it commits, and forgets
    /// `cleanupSlot`.
    static func makeTemporary(for path: String, replacing existing: stat?) throws(FileError)
        -> (descriptor: Int32, template: [CChar], temporary: String, cleanupSlot: Int32) {
        let folder = parentFolder(of: path)
        let name = FileSystem.name(of: path)
        var template = PathBytes.bytes(of: "\(folder)/.\(temporaryStem(name)).XXXXXX").map { CChar(bitPattern: $0) } + [0]
        fileio_install_cleanup_handlers()
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw FileError(path: path, errno: errno, action: "cannot create a file in \(folder)")
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { PathBytes.string(cString: $0.baseAddress!) }
        let cleanupSlot = fileio_remember_file(template)
        givePermissions(descriptor, replacing: existing)
        return (descriptor, template, temporary, cleanupSlot)
    }

    /// Opens `descriptor` as a stream, lets `write` fill it and flushes it;
    /// returns the open stream (closed here on any failure).
    static func writeStream(_ descriptor: Int32, path: String,
                            _ write: (UnsafeMutablePointer<FILE>) throws -> Void) throws -> UnsafeMutablePointer<FILE> {
        guard let stream = fdopen(descriptor, "wb") else {
            close(descriptor)
            throw FileError(path: path, errno: errno, action: "cannot write")
        }
        do {
            try write(stream)
        } catch {
            fclose(stream)
            throw error
        }
        guard fflush(stream) == 0 else {
            let code = errno
            fclose(stream)
            throw FileError(path: path, errno: code, action: "cannot write")
        }
        return stream
    }

    /// mkstemp creates 0600: a temporary takes the replaced file's
    /// permissions, or those a plain create would give a new file.
    static func givePermissions(_ descriptor: Int32, replacing existing: stat?) {
        if let existing, (existing.st_mode & S_IFMT) == S_IFREG {
            fchmod(descriptor, existing.st_mode & 0o777)
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(descriptor, 0o666 & ~mask)
        }
    }

    /// What is at `path` now (nil: nothing), after checking that it may be
    /// replaced: absent, a regular file or a symbolic link, and none of
    /// `inputs` (compared by device and inode, through symbolic links too).
    /// - Throws: `FileError` naming what is there.
    @discardableResult
    public static func checkTarget(_ path: String, inputs: [String]) throws(FileError) -> stat? {
        var target = stat()
        guard PathBytes.withCString(path, { lstat($0, &target) }) == 0 else { return nil }
        let kind = target.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFLNK else {
            throw FileError(path: path, message: "is \(kindName(target.st_mode)), not a regular file: "
                            + "the output must be a new file or a regular file to replace")
        }
        for input in inputs {
            var followed = stat(), link = stat()
            let same = { (other: stat) in other.st_dev == target.st_dev && other.st_ino == target.st_ino }
            let found = PathBytes.withCString(input) { (stat($0, &followed) == 0 && same(followed)) || (lstat($0, &link) == 0 && same(link)) }
            if found {
                let alias = input == path ? "" : " (\(input))"
                throw FileError(path: path, message: "is an input of this run\(alias); choose another output file")
            }
        }
        return target
    }

    /// The target's name, shortened so that `.NAME.XXXXXX` fits a file
    /// name (NAME_MAX, 255 bytes), cut at a character boundary.
    static func temporaryStem(_ name: String) -> String {
        let room = 255 - ".".utf8.count - ".XXXXXX".utf8.count
        guard PathBytes.bytes(of: name).count > room else { return name }
        var stem = ""
        var bytes = 0
        for character in name {
            bytes += PathBytes.bytes(of: String(character)).count
            if bytes > room { break }
            stem.append(character)
        }
        return stem
    }

    /// `.synced` when something exists at `path` (a link counts: rename
    /// replaces it), `.cached` otherwise.
    public static func commit(for path: String) -> Commit {
        var info = stat()
        return PathBytes.withCString(path, { lstat($0, &info) }) == 0 ? .synced : .cached
    }

    /// Runs `body`, and fsync on another thread meanwhile if `syncing`: the
    /// errno of a failed fsync, or what `body` threw.
    private static func finish(_ descriptor: Int32, syncing: Bool, _ body: (() throws -> Void)?) -> Result<Int32?, any Error> {
        guard syncing else { return Result { try body?() }.map { nil } }
        guard let body else { return .success(fsync(descriptor) == 0 ? nil : errno) }
        let result = SyncResult()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { result.code = fsync(descriptor) == 0 ? nil : errno }
        let outcome = Result { try body() }
        group.wait()
        return outcome.map { result.code }
    }

    /// Creates `path` holding `bytes`; `inputs` as for `write(to:inputs:...)`.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, inputs: [String] = []) throws {
        try write(to: path, inputs: inputs) { stream, _ in
            let array = Array(bytes)
            guard fwrite(array, 1, array.count, stream) == array.count else {
                throw FileError(path: path, errno: errno, action: "cannot write")
            }
        }
    }

    static func parentFolder(of path: String) -> String {
        FileSystem.folder(of: path)
    }
}

/// What the syncing thread found (read after it is done).
private final class SyncResult: @unchecked Sendable {
    var code: Int32?
}
