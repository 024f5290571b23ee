#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file mapped read-only into memory. Weight payloads decoded from it are
/// slices of this mapping, so it stays alive as long as anything refers to it.
public final class MappedFile: @unchecked Sendable {
    /// The path the file was opened from, for error messages.
    public let path: String
    /// The file's bytes. Valid for the lifetime of this object.
    public let bytes: UnsafeRawBufferPointer
    private let mappedLength: Int

    /// Maps `path` read-only.
    /// - Throws: `FileError` when the file cannot be opened, is not a regular
    ///   file (a folder, a FIFO, a device), or cannot be mapped.
    public init(path: String) throws {
        self.path = path
        let (descriptor, length) = try ReadableFile.open(path)
        defer { close(descriptor) }
        guard length > 0 else {
            // mmap refuses a zero length; an empty file is an empty buffer.
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            mappedLength = 0
            return
        }
        let address = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw FileError(path: path, errno: errno, action: "cannot map")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: length)
        mappedLength = length
    }

    /// Asks the kernel to take back the pages of the file that this process
    /// holds, once a reader has copied what it needed (a Core ML decoder
    /// copies the unaligned weight arrays, most of them, and reads every
    /// page doing so): a page still read later comes back from the file.
    /// MADV_PAGEOUT (Linux 5.4) never changes contents; elsewhere nothing.
    public func releaseResidentPages() {
        MemoryPages.pageOut(bytes)
    }

    deinit {
        if mappedLength > 0, let start = bytes.baseAddress {
            munmap(UnsafeMutableRawPointer(mutating: start), mappedLength)
        }
    }
}
