#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A constant float32 tensor's values, flat in row-major order.
///
/// The values either belong to the weights (copied in from an array) or are
/// borrowed from memory that another object owns, typically a slice of a
/// memory-mapped model file: a 500 MB file is never copied just to be
/// converted. Either way the memory is immutable and stays valid as long as
/// this value (or a copy of it) exists.
// Sendable: the memory behind `pointer` is kept alive by `owner`, which is
// itself Sendable, and is only written through `update`, which writes in
// place only when no other copy of the weights can see it.
public struct Weights: @unchecked Sendable {
    /// The values, valid while `owner` lives.
    private var pointer: UnsafeBufferPointer<Float>
    /// Keeps `pointer` valid: a `FloatStorage` or the mapped file.
    private var owner: (any AnyObject & Sendable)?

    /// Number of values, whether or not they were loaded.
    public let count: Int

    /// Whether the values are present. A structure-only read of a model file
    /// knows how many values a tensor has without loading them.
    public let isLoaded: Bool

    /// Weights holding a copy of `values`.
    public init(_ values: [Float]) {
        self.init(count: values.count) { _ = $0.initialize(from: values) }
    }

    /// Weights of `count` values (zero at first) that `body` writes in place:
    /// a layout change fills the final memory directly, with no array to copy.
    public init(count: Int, initializingWith body: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows {
        let storage = try FloatStorage(count: count, body)
        self.pointer = storage.buffer
        self.owner = storage
        self.count = count
        self.isLoaded = true
    }

    /// Weights that borrow `buffer`, which `owner` keeps alive and unchanged.
    public init(borrowing buffer: UnsafeBufferPointer<Float>, owner: any AnyObject & Sendable) {
        self.pointer = buffer
        self.owner = owner
        self.count = buffer.count
        self.isLoaded = true
    }

    /// Weights whose values were not read: only the count is known.
    public init(unloadedCount count: Int) {
        self.pointer = UnsafeBufferPointer(start: nil, count: 0)
        self.owner = nil
        self.count = count
        self.isLoaded = false
    }

    /// Calls `body` with the values (empty when not loaded).
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try withExtendedLifetime(owner) { try body(pointer) }
    }

    /// The values' memory, for writers that stream it into a file without
    /// copying. Valid only while this value (or a copy of it) is alive;
    /// empty when not loaded.
    public var unsafeBuffer: UnsafeBufferPointer<Float> { pointer }

    /// Rewrites the values: in place when these weights own their memory and
    /// no other copy shares it, otherwise in a fresh copy first
    /// (copy-on-write; borrowed memory such as a mapped file is never written).
    /// A pass that scales 200 MB of convolution weights then allocates nothing.
    public mutating func update(_ body: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows {
        precondition(isLoaded, "cannot update weights that were not loaded")
        if owner is FloatStorage, isKnownUniquelyReferenced(&owner) {
            return try body(UnsafeMutableBufferPointer(mutating: pointer))
        }
        let storage = FloatStorage(count: count) { copy in _ = copy.initialize(from: pointer) }
        try body(UnsafeMutableBufferPointer(mutating: storage.buffer))
        pointer = storage.buffer
        owner = storage
    }

    /// The values as an array (a copy).
    public var values: [Float] { withUnsafeBufferPointer { Array($0) } }

    /// The value at `index`.
    public subscript(index: Int) -> Float { withUnsafeBufferPointer { $0[index] } }
}

extension Weights: Equatable {
    /// Equal when both hold the same bit patterns (so NaN weights compare
    /// equal to themselves, as a lossless round trip needs).
    public static func == (lhs: Weights, rhs: Weights) -> Bool {
        guard lhs.isLoaded == rhs.isLoaded, lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBufferPointer { left in
            rhs.withUnsafeBufferPointer { right in
                left.baseAddress == right.baseAddress
                    || zip(left, right).allSatisfy { $0.bitPattern == $1.bitPattern }
            }
        }
    }
}

extension Weights: CustomStringConvertible {
    public var description: String { isLoaded ? "Weights(\(count) values)" : "Weights(\(count) values, not loaded)" }
}

/// Memory for weights that own their values: a stable address that the Core
/// ML writer can hand to protobuf-c without copying.
///
/// Large tensors get their own anonymous mapping: the kernel hands out zeroed
/// pages as they are first written, so there is no separate zeroing pass.
final class FloatStorage: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<Float>
    /// Whether `buffer` is an mmap'ed region (else malloc'ed).
    private let isMapped: Bool

    /// Tensors at least this large (bytes) are mapped rather than malloc'ed.
    static let mappingThreshold = 1 << 20

    init(count: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows {
        let (memory, isMapped) = Self.allocateZeroed(count)
        do {
            try body(memory)
        } catch {
            Self.release(memory, isMapped: isMapped)
            throw error
        }
        buffer = UnsafeBufferPointer(memory)
        self.isMapped = isMapped
    }

    deinit {
        Self.release(UnsafeMutableBufferPointer(mutating: buffer), isMapped: isMapped)
    }

    private static func allocateZeroed(_ count: Int) -> (UnsafeMutableBufferPointer<Float>, Bool) {
        let bytes = count * MemoryLayout<Float>.stride
        if bytes >= mappingThreshold,
           let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), region != MAP_FAILED {
            return (UnsafeMutableBufferPointer(start: region.bindMemory(to: Float.self, capacity: count), count: count), true)
        }
        let memory = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(count, 1))
        memory.initialize(repeating: 0)
        return (UnsafeMutableBufferPointer(rebasing: memory[0..<count]), false)
    }

    private static func release(_ memory: UnsafeMutableBufferPointer<Float>, isMapped: Bool) {
        guard let base = memory.baseAddress else { return }
        if isMapped {
            munmap(base, memory.count * MemoryLayout<Float>.stride)
        } else {
            base.deallocate()
        }
    }
}
