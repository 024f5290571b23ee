import CHDF5
import Threads
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why an HDF5 file, or an object in it, cannot be read: one line naming the
/// file and the object, such as `model.h5: data/conv1/0: no such dataset`, or
/// only the file (`model.h5: not an HDF5 file`) when the file itself is at fault.
public struct HDF5Error: Error, CustomStringConvertible, Sendable, Equatable {
    /// The path of the file, as given to `HDF5File(path:)`.
    public var path: String
    /// The object concerned (`data/conv1/0`, or `/` for an attribute of the
    /// root group), as given to the call that failed; nil for the file itself.
    public var object: String?
    /// What is wrong, without the file and object names.
    public var message: String

    public init(path: String, object: String?, message: String) {
        self.path = path
        self.object = object
        // Library messages can hold newlines; keep the error on one line.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    public var description: String {
        if let object { return "\(path): \(object): \(message)" }
        return "\(path): \(message)"
    }
}

/// Limits on what a file may make the reader allocate; a file exceeding one is
/// refused with an `HDF5Error` before anything is allocated for it.
public struct HDF5Limits: Sendable, Equatable {
    /// Highest dataset rank.
    public var maximumRank = 8
    /// Most elements in one dataset (2^31).
    public var maximumElements = 1 << 31
    /// How many times the file's size the stored bytes of a dataset with
    /// compression filters may be (deflate cannot exceed about 1032).
    public var maximumCompressionRatio = 1024
    /// Largest chunk of a chunked dataset, in bytes (HDF5 reads whole chunks).
    public var maximumChunkBytes = 256 << 20
    /// Most bytes (or strings) in one string attribute.
    public var maximumAttributeBytes = 64 << 20
    /// Longest wait, in seconds, for the child process that reads a
    /// variable-length string attribute (a corrupt global heap can make
    /// libhdf5 loop there; 64 MB of strings take well under a second).
    public var attributeReadSeconds = 5
    /// Most links listed in one group.
    public var maximumLinks = 1 << 20

    /// The limits above.
    public init() {}
}

/// What an HDF5 object is.
public enum HDF5ObjectKind: String, Sendable, Equatable {
    case group, dataset
    /// A named (committed) datatype.
    case datatype
}

/// Serializes every call into libhdf5 (many builds are not thread-safe) and
/// keeps its per-thread error stack and the error read from it together.
let hdf5Lock = HDF5Lock()

/// The lock every HDF5 call takes, so that it can be a global constant.
final class HDF5Lock: Sendable {
    private let lock = Lock()

    /// Runs `body` holding the lock, with HDF5's error printing off. Only
    /// once `loadFailure` said the library is there.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        try lock.locked {
            hdf5_silence_errors()
            return try body()
        }
    }

    /// Why libhdf5 could not be loaded and set up (`hdf5_load`, tried once),
    /// or nil when it was.
    var loadFailure: String? {
        lock.locked { hdf5Library }
    }
}

/// `hdf5_load`'s outcome, under the lock at first use.
private let hdf5Library: String? = {
    var message = [CChar](repeating: 0, count: 512)
    guard hdf5_load(&message, message.count) != 0 else { return nil }
    return String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}()

/// The most specific message on HDF5's error stack (which it clears), or "".
func innermostHDF5Error() -> String {
    var buffer = [CChar](repeating: 0, count: 512)
    hdf5_innermost_error(&buffer, buffer.count)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
