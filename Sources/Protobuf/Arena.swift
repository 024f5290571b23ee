#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns the memory of a tree of protobuf-c message structs: every struct,
/// array and string of one decoded (or to-be-packed) message is allocated
/// here and freed together when the arena goes away. Payloads that point
/// into an input buffer keep that buffer's owner alive through `retain`.
public final class Arena: @unchecked Sendable {
    private var blocks: [UnsafeMutableRawPointer] = []
    private var cursor: UnsafeMutableRawPointer?
    private var remaining = 0
    private var owners: [AnyObject] = []
    /// Bytes handed out so far.
    public private(set) var allocatedBytes = 0
    /// Allocation ceiling; exceeding it throws instead of allocating.
    public let budget: Int

    private static let blockSize = 64 * 1024

    /// - Parameter budget: the most bytes this arena may hand out.
    public init(budget: Int = .max) {
        self.budget = budget
    }

    deinit {
        for block in blocks { free(block) }
    }

    /// Keeps `owner` alive as long as this arena: use it for the buffer that
    /// decoded payloads point into.
    public func retain(_ owner: AnyObject) {
        owners.append(owner)
    }

    /// Returns `size` zeroed bytes aligned to 8.
    /// - Throws: `ArenaError.overBudget` when the budget would be exceeded,
    ///   `.outOfMemory` when the system has no memory for it.
    public func allocate(_ size: Int) throws(ArenaError) -> UnsafeMutableRawPointer {
        let (padded, overflow) = max(size, 1).addingReportingOverflow(7)
        let rounded = padded & ~7
        guard !overflow, rounded <= budget - allocatedBytes else {
            throw .overBudget(requested: overflow ? .max : rounded, budget: budget)
        }
        if rounded > Self.blockSize / 4 {
            // Large arrays get a block of their own so small ones keep packing.
            guard let block = calloc(1, rounded) else { throw .outOfMemory(requested: rounded) }
            blocks.append(block)
            allocatedBytes += rounded
            return block
        }
        if rounded > remaining {
            guard let block = calloc(1, Self.blockSize) else { throw .outOfMemory(requested: Self.blockSize) }
            blocks.append(block)
            cursor = block
            remaining = Self.blockSize
        }
        allocatedBytes += rounded
        let result = cursor!
        cursor = result + rounded
        remaining -= rounded
        return result
    }

    /// Allocates a zeroed array of `count` values of `T`.
    public func allocate<T>(_ type: T.Type, count: Int) throws(ArenaError) -> UnsafeMutablePointer<T> {
        let (bytes, overflow) = MemoryLayout<T>.stride.multipliedReportingOverflow(by: count)
        guard !overflow else { throw .overBudget(requested: .max, budget: budget) }
        return try allocate(bytes).bindMemory(to: T.self, capacity: count)
    }

    /// Copies `values` into the arena; returns nil for an empty array, as
    /// protobuf-c expects for absent repeated fields.
    public func copy<T>(_ values: [T]) -> UnsafeMutablePointer<T>? {
        guard !values.isEmpty else { return nil }
        let pointer = try! allocate(T.self, count: values.count)
        pointer.initialize(from: values, count: values.count)
        return pointer
    }

    /// Copies `string` as a NUL-terminated C string.
    public func cString(_ string: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(string.utf8)
        let pointer = try! allocate(CChar.self, count: utf8.count + 1)
        utf8.withUnsafeBytes { UnsafeMutableRawPointer(pointer).copyMemory(from: $0.baseAddress!, byteCount: utf8.count) }
        return pointer
    }

    /// Allocates one protobuf-c message struct of type `T` and runs its
    /// generated `__init` function (which sets the descriptor and defaults).
    public func message<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void) -> UnsafeMutablePointer<T> {
        let pointer = try! allocate(T.self, count: 1)
        initialize(pointer)
        return pointer
    }
}

/// Why the arena refused an allocation.
public enum ArenaError: Error, Sendable {
    case overBudget(requested: Int, budget: Int)
    /// calloc found no memory (the budget allowed the request).
    case outOfMemory(requested: Int)
}

extension Arena {
    /// `size` bytes for a decoder at byte `offset` of its input, a failure
    /// said as a `DecodeError` there: the system out of memory, or the
    /// budget exceeded (with `overBudget` added to the message).
    func allocate(_ size: Int, at offset: Int, overBudget note: String = "") throws(DecodeError) -> UnsafeMutableRawPointer {
        do {
            return try allocate(size)
        } catch .outOfMemory(let requested) {
            throw DecodeError("out of memory allocating \(SizeText.bytes(requested))", offset: offset)
        } catch {
            throw DecodeError("decoding needs more than \(SizeText.bytes(budget)) of memory\(note)", offset: offset)
        }
    }
}
