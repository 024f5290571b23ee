#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Naming

/// Questions to the file system and folder operations by path, each on the
/// path's exact bytes (`PathBytes`): Foundation's `FileManager` encodes a
/// path as UTF-8, which turns a held byte that is not UTF-8 into another
/// name, so the programs use these instead.
public enum FileSystem {
    /// Calls `body` with `path`'s exact bytes as a C string, for a library
    /// that opens files by name (libhdf5).
    public static func withCString<Result>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try PathBytes.withCString(path, body)
    }

    /// What a path names, after symbolic links.
    public enum Kind: Equatable, Sendable {
        case regularFile
        case folder
        /// A FIFO, a device, a socket.
        case other
    }

    /// What `path` names (after symbolic links), or nil when nothing is there.
    public static func kind(of path: String) -> Kind? {
        var info = stat()
        guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile
        case S_IFDIR: return .folder
        default: return .other
        }
    }

    /// Whether `path` names something (a broken symbolic link counts).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return PathBytes.withCString(path, { lstat($0, &info) }) == 0
    }

    /// Whether `path` is a regular file this process may execute.
    public static func isExecutableFile(_ path: String) -> Bool {
        kind(of: path) == .regularFile && PathBytes.withCString(path, { access($0, X_OK) }) == 0
    }

    /// The names in the folder at `path` (without `.` and `..`), each with
    /// the bytes `readdir` gave, in no particular order.
    /// - Throws: `FileError` when the folder cannot be read.
    public static func names(inFolder path: String) throws(FileError) -> [String] {
        guard let folder = PathBytes.withCString(path, { opendir($0) }) else {
            throw FileError(path: path, errno: errno, action: "cannot read the folder")
        }
        defer { closedir(folder) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(folder) else {
                guard errno == 0 else { throw FileError(path: path, errno: errno, action: "cannot read the folder") }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                PathBytes.string(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// The last component of `path` (a trailing `/` ignored; `path` itself
    /// when it has none), split at the byte `/`: searched among Unicode
    /// scalars, not characters, since a combining mark after `/` would make
    /// one character of the two.
    public static func name(of path: String) -> String {
        let scalars = path.unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex, scalars[scalars.index(before: end)] == "/" { end = scalars.index(before: end) }
        guard end > scalars.startIndex else { return path }
        let start = scalars[..<end].lastIndex(of: "/").map { scalars.index(after: $0) } ?? scalars.startIndex
        return String(scalars[start..<end])
    }

    /// The folder `path` is in: before its last `/` byte (`.` when it has
    /// none, `/` for a file in the root), as `name(of:)` splits.
    public static func folder(of path: String) -> String {
        let scalars = path.unicodeScalars
        guard let slash = scalars.lastIndex(of: "/") else { return "." }
        return slash == scalars.startIndex ? "/" : String(scalars[..<slash])
    }

    /// `name` inside `folder`: `folder/name` (one slash).
    public static func path(of name: String, in folder: String) -> String {
        folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Creates the folder `path` (and, with `intermediate`, its missing
    /// parents); a folder already there is fine.
    /// - Throws: `FileError` when something else is there or it cannot be made.
    public static func makeFolder(_ path: String, intermediate: Bool = false) throws(FileError) {
        switch kind(of: path) {
        case .folder: return
        case .regularFile, .other:
            throw FileError(path: path, message: "is not a folder")
        case nil: break
        }
        if intermediate, case let parent = folder(of: path), parent != "/", parent != "." {
            try makeFolder(parent, intermediate: true)
        }
        guard PathBytes.withCString(path, { mkdir($0, 0o777) }) == 0 || errno == EEXIST else {
            throw FileError(path: path, errno: errno, action: "cannot create the folder")
        }
    }

    /// The absolute path of `path` with symbolic links resolved (`realpath`),
    /// bytes kept; nil with errno set when it cannot be resolved.
    public static func resolved(_ path: String) -> String? {
        guard let real = PathBytes.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(real) }
        return PathBytes.string(cString: real)
    }
}
