#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Naming

/// Opening files to read, for every reader of model, weight, image, label
/// and array files: only regular files are read. A FIFO would block the
/// program forever (opening it waits for a writer), a device would be read
/// without end, and a folder has no content; each is one clear error.
public enum ReadableFile {
    /// Opens `path` read-only, without blocking on a FIFO.
    /// - Returns: the descriptor (close it) and the file's size in bytes.
    /// - Throws: `FileError` when it cannot be opened or is not a regular file.
    public static func open(_ path: String) throws(FileError) -> (descriptor: Int32, size: Int) {
        let descriptor = systemOpen(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(path: path, errno: errno, action: "cannot open") }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw FileError(path: path, errno: code, action: "cannot read")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw notRegular(path, info.st_mode)
        }
        // Reads of a regular file never block; clear the flag all the same.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, Int(info.st_size))
    }

    /// Checks that `path` names a regular file (after symbolic links), for
    /// libraries that open files by name themselves (libhdf5).
    /// - Throws: `FileError` when it does not exist or is something else.
    public static func check(_ path: String) throws(FileError) {
        var info = stat()
        guard PathBytes.withCString(path, { stat($0, &info) }) == 0 else { throw FileError(path: path, errno: errno, action: "cannot open") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw notRegular(path, info.st_mode) }
    }

    /// The whole content of the regular file at `path`.
    /// - Parameter limit: the largest size accepted, in bytes.
    /// - Throws: `FileError`.
    public static func bytes(_ path: String, limit: Int = Int.max) throws(FileError) -> [UInt8] {
        let (descriptor, size) = try open(path)
        defer { close(descriptor) }
        guard size <= limit else { throw FileError(path: path, message: "the file has \(size) bytes, more than the limit of \(limit)") }
        // The file shrank while being read: keep what is there.
        return try read(descriptor, count: size, path: path)
    }

    /// Up to `count` bytes from `descriptor` (fewer at the end of the file),
    /// reads interrupted by a signal resumed.
    /// - Throws: `FileError` naming `path` when a read fails.
    public static func read(_ descriptor: Int32, count: Int, path: String) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        var failure: Int32 = 0
        bytes.withUnsafeMutableBytes { buffer in
            while filled < count, let base = buffer.baseAddress {
                let got = systemRead(descriptor, base + filled, count - filled)
                if got < 0 && errno == EINTR { continue }
                if got < 0 { failure = errno }
                if got <= 0 { return }
                filled += got
            }
        }
        guard failure == 0 else { throw FileError(path: path, errno: failure, action: "cannot read") }
        if filled < count { bytes.removeLast(count - filled) }
        return bytes
    }

    static func notRegular(_ path: String, _ mode: mode_t) -> FileError {
        FileError(path: path, message: "not a regular file (\(kindName(mode)))")
    }
}

/// `open(2)` and `read(2)`, which `ReadableFile.open` and `read` hide;
/// `path`'s exact bytes are opened (`PathBytes`).
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
    PathBytes.withCString(path) { open($0, flags) }
}

private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
