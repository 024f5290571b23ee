#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file atomically: the content goes to a temporary file in the
/// target's folder, which is flushed, synced and renamed over the target
/// only when everything succeeded. A failed write leaves no partial file
/// and never touches an existing one.
public enum AtomicFile {
    /// Creates `path` with the content `write` produces on a stdio stream.
    /// - Throws: `FileError` for file-system failures, or whatever `write` throws.
    public static func write(to path: String, _ write: (UnsafeMutablePointer<FILE>) throws -> Void) throws {
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
        let flushed = fflush(stream) == 0 && fsync(fileno(stream)) == 0
        let flushError = errno
        let closed = fclose(stream) == 0
        guard flushed, closed else {
            throw FileError(path: path, errno: flushed ? errno : flushError, action: "cannot write")
        }
        guard rename(temporary, path) == 0 else {
            throw FileError(path: path, errno: errno, action: "cannot replace")
        }
        committed = true
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
