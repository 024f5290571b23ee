#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CFileIO
import Naming

/// Writes a folder (a model package) atomically, as `AtomicFile` writes a
/// file: its content goes into a temporary `.NAME.XXXXXX` folder beside
/// the target, which takes the target's place only when complete. A failed
/// write leaves no temporary folder and never touches an existing one.
///
/// The target must be absent or a folder `isReplaceable` accepts (a
/// package: its own kind of content, never an arbitrary folder), and none
/// of the run's `inputs` may be it or lie inside it. An existing target is
/// swapped with the new folder in one step (renameat2 RENAME_EXCHANGE) and
/// then removed; where the file system cannot swap, it is first renamed
/// aside, so that the target is, for an instant, absent, but never half
/// replaced. A signal (SIGINT, SIGTERM, SIGHUP) during the write removes
/// the temporary folder (`fileio_remember_tree`).
///
/// As `AtomicFile` does for a file: when a package is replaced, every file
/// and folder of the new one is synced to disk before the swap, so that not
/// even a power cut can leave the old package replaced by a partial new
/// one; a new package is left to the system's write-back (waiting for the
/// disk there would protect nothing that existed).
public enum AtomicFolder {
    /// Creates the folder `path` with what `fill` writes into the
    /// temporary folder it is given; `fill` also gets how the folder is to
    /// be committed (a writer of a large file can start the disk early when
    /// it is to be synced).
    /// - Throws: `FileError` for a target that may not be replaced and for
    ///   file-system failures, or what `fill` throws.
    public static func write(to path: String, inputs: [String] = [], isReplaceable: (String) -> Bool,
                             _ fill: (_ folder: String, _ commit: AtomicFile.Commit) throws -> Void) throws {
        let path = withoutTrailingSlashes(path)
        let exists = try checkTarget(path, inputs: inputs, isReplaceable: isReplaceable)
        let parent = FileSystem.folder(of: path)
        let stem = AtomicFile.temporaryStem(FileSystem.name(of: path))
        let temporary = try makeTemporaryFolder(FileSystem.path(of: ".\(stem).XXXXXX", in: parent), for: path)
        fileio_install_cleanup_handlers()
        let slot = PathBytes.withCString(temporary) { fileio_remember_tree($0) }
        var committed = false
        defer {
            if !committed { removeTree(temporary) }
            fileio_forget(slot)
        }
        try fill(temporary, exists ? .synced : .cached)
        let replacing = exists || FileSystem.kind(of: path) == .folder
        if replacing {
            guard isReplaceable(path) else { throw FileError(path: path, message: "appeared while writing and is not a model package; nothing replaced") }
            // On disk before it takes the old package's place: a crash after the swap must not leave an empty or half-written package.
            try syncTree(temporary, target: path)
            try replace(path, with: temporary, parent: parent, stem: stem)
        } else {
            guard PathBytes.withCString(temporary, { from in PathBytes.withCString(path) { rename(from, $0) } }) == 0 else {
                throw FileError(path: path, errno: errno, action: "cannot move the written package into place")
            }
        }
        committed = true
    }

    /// Whether `path` exists (a folder `isReplaceable` accepts), after the
    /// checks; nothing else may be there.
    public static func checkTarget(_ path: String, inputs: [String], isReplaceable: (String) -> Bool) throws(FileError) -> Bool {
        let path = withoutTrailingSlashes(path)
        guard let kind = FileSystem.kind(of: path) else {
            if FileSystem.exists(path) { throw FileError(path: path, message: "is a broken link; choose another output folder") }
            return false
        }
        guard !isLink(path) else {
            throw FileError(path: path, message: "is a symbolic link, which is not followed: the output must be a new package or a package to replace")
        }
        guard kind == .folder else {
            throw FileError(path: path, message: "exists and is not a folder: the output must be a new package or a package to replace")
        }
        guard isReplaceable(path) else {
            throw FileError(path: path, message: "is a folder that is not a model package; it is not replaced")
        }
        if let target = FileSystem.resolved(path) {
            for input in inputs {
                guard let resolved = FileSystem.resolved(input) else { continue }
                if resolved == target || resolved.hasPrefix(target + "/") {
                    throw FileError(path: path, message: "holds an input of this run (\(input)); choose another output folder")
                }
            }
        }
        return true
    }

    /// `M.mlpackage/` names the folder `M.mlpackage` (the root stays `/`).
    static func withoutTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    private static func isLink(_ path: String) -> Bool {
        var info = stat()
        return PathBytes.withCString(path, { lstat($0, &info) }) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    private static func makeTemporaryFolder(_ template: String, for path: String) throws(FileError) -> String {
        var bytes = Array(PathBytes.bytes(of: template).map { CChar(bitPattern: $0) }) + [0]
        guard mkdtemp(&bytes) != nil else {
            throw FileError(path: path, errno: errno, action: "cannot create a temporary folder beside it")
        }
        // mkdtemp makes 0700: the package gets what a plain mkdir would give it.
        let mask = umask(0)
        umask(mask)
        chmod(bytes, 0o777 & ~mask)
        return PathBytes.string(cString: bytes)
    }

    /// Puts `temporary` in the place of the existing `path` and removes the old folder.
    private static func replace(_ path: String, with temporary: String, parent: String, stem: String) throws {
        let swapped = PathBytes.withCString(temporary, { from in PathBytes.withCString(path) { fileio_exchange(from, $0) } }) == 0
        if swapped {
            removeTree(temporary)  // now the old package
            return
        }
        let aside = try makeTemporaryFolder(FileSystem.path(of: ".\(stem).old.XXXXXX", in: parent), for: path)
        let movedAside = PathBytes.withCString(path, { from in PathBytes.withCString(aside) { rename(from, $0) } }) == 0
        guard movedAside else {
            removeTree(aside)
            throw FileError(path: path, errno: errno, action: "cannot move the existing package aside")
        }
        guard PathBytes.withCString(temporary, { from in PathBytes.withCString(path) { rename(from, $0) } }) == 0 else {
            let code = errno
            _ = PathBytes.withCString(aside, { from in PathBytes.withCString(path) { rename(from, $0) } })
            throw FileError(path: path, errno: code, action: "cannot move the written package into place (the old one is kept)")
        }
        removeTree(aside)
    }

    /// fsync of every file and folder under `path` (links are not
    /// followed), folders after their content.
    static func syncTree(_ path: String, target: String) throws(FileError) {
        var info = stat()
        guard PathBytes.withCString(path, { lstat($0, &info) }) == 0 else { throw FileError(path: target, errno: errno, action: "cannot write") }
        let isFolder = (info.st_mode & S_IFMT) == S_IFDIR
        guard isFolder || (info.st_mode & S_IFMT) == S_IFREG else { return }
        if isFolder {
            for name in try FileSystem.names(inFolder: path) where name != "." && name != ".." {
                try syncTree(FileSystem.path(of: name, in: path), target: target)
            }
        }
        let descriptor = PathBytes.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | (isFolder ? O_DIRECTORY : 0)) }
        guard descriptor >= 0 else { throw FileError(path: target, errno: errno, action: "cannot write") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileError(path: target, errno: errno, action: "cannot write") }
    }

    /// Removes `path` and everything under it; links are removed, never followed.
    static func removeTree(_ path: String) {
        var info = stat()
        guard PathBytes.withCString(path, { lstat($0, &info) }) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in (try? FileSystem.names(inFolder: path)) ?? [] where name != "." && name != ".." {
                removeTree(FileSystem.path(of: name, in: path))
            }
            _ = PathBytes.withCString(path) { rmdir($0) }
        } else {
            _ = PathBytes.withCString(path) { unlink($0) }
        }
    }
}
