import FileIO

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
        /// Values not read (a summary): only their number of bytes.
        case unloaded(Int)
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

    /// `count` values that were not read, for a summary: the layout moves
    /// give `Weights(unloadedCount:)` for them, as a structure-only read of
    /// a model file does.
    public init(unloadedCount count: Int) {
        // A count no file can hold (2^62 values) is kept saturated: the
        // model's validation then refuses the layer, nothing traps here.
        let (bytes, overflow) = count.multipliedReportingOverflow(by: 4)
        source = .unloaded(overflow ? Int.max : bytes)
    }

    /// Whether the values are there (`withBytes` has nothing otherwise).
    public var isLoaded: Bool {
        if case .unloaded = source { false } else { true }
    }

    /// Number of bytes.
    public var count: Int {
        switch source {
        case .array(let values): 4 * values.count
        case .borrowed(let bytes, _, _): bytes.count
        case .unloaded(let count): count
        }
    }

    /// Calls `body` with the bytes, kept alive meanwhile.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch source {
        case .array(let values): try values.withUnsafeBytes(body)
        case .borrowed(let bytes, let owner, _): try withExtendedLifetime(owner) { try body(bytes) }
        case .unloaded: try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    /// Tells the kernel that the pages of a mapped file holding these bytes
    /// are not needed any more, once the values were copied out: peak memory
    /// stays near the model's weights instead of weights plus file.
    /// Harmless if read again (a read-only file mapping pages the data back
    /// in); nothing for bytes in ordinary memory, whose pages must not go.
    public func releasePages() {
        guard case .borrowed(let bytes, let owner, true) = source else { return }
        withExtendedLifetime(owner) { MemoryPages.discard(bytes) }
    }
}
