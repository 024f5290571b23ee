#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Writes a file atomically: the content goes to a temporary file in the
/// target's folder, which is flushed, synced and renamed over the target
/// only when everything succeeded. A failed write leaves no partial file
/// and never touches an existing one.
public enum AtomicFile {
    /// Creates `path` with the content `write` produces on a stdio stream.
    /// `whileSyncing`, if given, is called with the path of the complete
    /// temporary file while it is being synced to disk (to read it back,
    /// say); if it throws, the file is not committed.
    /// - Throws: `FileError` for file-system failures, or whatever `write`
    ///   or `whileSyncing` throws.
    public static func write(to path: String, whileSyncing: ((String) throws -> Void)? = nil,
                             _ write: (UnsafeMutablePointer<FILE>) throws -> Void) throws {
        let folder = parentFolder(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(folder)/.\(name).XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw FileError(path: path, errno: errno, action: "cannot create a file in \(folder)")
        }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var committed = false
        defer { if !committed { unlink(temporary) } }

        // mkstemp creates 0600; give the file the permissions a plain create would.
        let mask = umask(0)
        umask(mask)
        fchmod(descriptor, 0o666 & ~mask)

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
        let synced = Self.sync(fileno(stream), whileSyncing: whileSyncing.map { body in { try body(temporary) } })
        let closed = fclose(stream) == 0
        let closeError = errno
        switch synced {
        case .failure(let error): throw error
        case .success(let code?): throw FileError(path: path, errno: code, action: "cannot write")
        case .success(nil): guard closed else { throw FileError(path: path, errno: closeError, action: "cannot write") }
        }
        guard rename(temporary, path) == 0 else {
            throw FileError(path: path, errno: errno, action: "cannot replace")
        }
        committed = true
    }

    /// fsync on another thread while `body` runs on this one: the errno of a
    /// failed fsync, or what `body` threw.
    private static func sync(_ descriptor: Int32, whileSyncing body: (() throws -> Void)?) -> Result<Int32?, any Error> {
        guard let body else { return .success(fsync(descriptor) == 0 ? nil : errno) }
        let result = SyncResult()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { result.code = fsync(descriptor) == 0 ? nil : errno }
        let outcome = Result { try body() }
        group.wait()
        return outcome.map { result.code }
    }

    /// Creates `path` holding `bytes`.
    public static func write(_ bytes: some Collection<UInt8>, to path: String) throws {
        try write(to: path) { stream in
            let array = Array(bytes)
            guard fwrite(array, 1, array.count, stream) == array.count else {
                throw FileError(path: path, errno: errno, action: "cannot write")
            }
        }
    }

    static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = path[..<slash]
        return folder.isEmpty ? "/" : String(folder)
    }
}

/// What the syncing thread found (read after it is done).
private final class SyncResult: @unchecked Sendable {
    var code: Int32?
}
