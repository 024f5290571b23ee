#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Naming

/// A file-system failure, with the path it concerns: `path: message`.
public struct FileError: Error, CustomStringConvertible, Sendable, Equatable {
    public let path: String
    public let message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `action: <the system's text for code>`, e.g. `cannot open: No such file or directory`.
    public init(path: String, errno code: Int32, action: String) {
        self.init(path: path, message: "\(action): \(String(cString: strerror(code)))")
    }

    /// `path: message`, escaped for a terminal (`TextEscaping`: a raw byte
    /// of the path as `\xff`, a newline in it as `\n`, not a line break).
    public var description: String { TextEscaping.line("\(path): \(message)") }
}

/// What kind of file-system object a `stat` mode describes, for messages:
/// "a folder", "a FIFO", "a character device", ...
func kindName(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "a regular file"
    case S_IFDIR: "a folder"
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    case S_IFLNK: "a symbolic link"
    default: "not a regular file"
    }
}
