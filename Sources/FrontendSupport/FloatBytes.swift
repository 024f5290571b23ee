#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Little-endian float32 values as a frontend found them, possibly
/// unaligned (a tensor inside a mapped `.pb` file), together with what keeps
/// them alive: the source a layout change reads, now or when the Core ML
/// writer streams the weights out.
// Sendable: the bytes are only read, and `owner` (or the array) keeps them valid.
public struct FloatBytes: @unchecked Sendable {
    private enum Source {
        case array([Float])
        /// Borrowed bytes, what keeps them alive, and whether they lie in a
        /// read-only file mapping, whose pages can be given back once read.
        case borrowed(UnsafeRawBufferPointer, owner: AnyObject, isMappedFile: Bool)
    }

    private let source: Source

    /// The bytes of `values` (the array is kept, not copied).
    public init(_ values: [Float]) {
        source = .array(values)
    }

    /// Bytes that `owner` keeps alive and unchanged; `isMappedFile` when
    /// they lie in a read-only file mapping.
    public init(borrowing bytes: UnsafeRawBufferPointer, owner: AnyObject, isMappedFile: Bool) {
        source = .borrowed(bytes, owner: owner, isMappedFile: isMappedFile)
    }

    /// `count` zeros that take no memory until read (an anonymous mapping:
    /// pages read stay the system's one zero page): a stand-in for values a
    /// summary counts but never reads.
    public static func zeros(count: Int) -> FloatBytes {
        let mapping = ZeroMapping(bytes: 4 * count)
        return FloatBytes(borrowing: UnsafeRawBufferPointer(start: mapping.address, count: 4 * count), owner: mapping,
                          isMappedFile: false)
    }

    /// Number of bytes.
    public var count: Int {
        switch source {
        case .array(let values): 4 * values.count
        case .borrowed(let bytes, _, _): bytes.count
        }
    }

    /// Calls `body` with the bytes, kept alive meanwhile.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch source {
        case .array(let values): try values.withUnsafeBytes(body)
        case .borrowed(let bytes, let owner, _): try withExtendedLifetime(owner) { try body(bytes) }
        }
    }

    /// Tells the kernel that the pages of a mapped file holding these bytes
    /// are not needed any more, once the values were copied out: peak memory
    /// stays near the model's weights instead of weights plus file.
    /// Harmless if read again (a read-only file mapping pages the data back
    /// in); nothing for bytes in ordinary memory, whose pages must not go.
    public func releasePages() {
        guard case .borrowed(let bytes, let owner, true) = source, let base = bytes.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + page - 1) / page * page
        let end = (Int(bitPattern: base) + bytes.count) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        withExtendedLifetime(owner) { _ = madvise(address, end - start, MADV_DONTNEED) }
    }
}

/// An anonymous read-only mapping of zeros, unmapped with its owner.
private final class ZeroMapping {
    let address: UnsafeRawPointer?
    let length: Int

    init(bytes: Int) {
        length = bytes
        guard bytes > 0 else {
            address = nil
            return
        }
        let mapped = mmap(nil, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let mapped, mapped != MAP_FAILED else {
            fatalError("cannot reserve \(bytes) bytes of address space: \(String(cString: strerror(errno)))")
        }
        address = UnsafeRawPointer(mapped)
    }

    deinit {
        if let address { munmap(UnsafeMutableRawPointer(mutating: address), length) }
    }
}
