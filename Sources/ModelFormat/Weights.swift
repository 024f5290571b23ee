#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A constant float32 tensor's values, flat in row-major order.
///
/// The values either belong to the weights (copied in from an array), are
/// borrowed from memory that another object owns (typically a slice of a
/// memory-mapped model file: a 500 MB file is never copied just to be
/// converted), or are computed when needed by a `WeightProducer` (a layout
/// change that a writer streams straight from the source file to the output
/// file). Either way the values are immutable and stay valid as long as
/// this value (or a copy of it) exists.
// Sendable: the memory behind `pointer` is kept alive by `owner`, which is
// itself Sendable, and is only written through `update(chunkwise:)`, which
// writes in place only when no other copy of the weights can see it; a
// producer is Sendable and never changes.
public struct Weights: @unchecked Sendable {
    /// The values, valid while `owner` lives (empty when `producer` computes them).
    private var pointer: UnsafeBufferPointer<Float>
    /// Keeps `pointer` valid: a `FloatStorage` or the mapped file.
    private var owner: (any AnyObject & Sendable)?
    /// Computes the values on demand, when they are not in memory.
    private var producer: WeightProducer?

    /// Number of values, whether or not they were loaded.
    public let count: Int

    /// Whether the values are present. A structure-only read of a model file
    /// knows how many values a tensor has without loading them.
    public let isLoaded: Bool

    /// How the file the values were read from stores them (a Core ML file's
    /// float16 weights are widened to Float here): what a summary reports.
    /// Not part of equality.
    public var storedPrecision: Precision = .float32

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

    /// Weights whose values `producer` computes when they are needed.
    public init(producer: WeightProducer) {
        self.pointer = UnsafeBufferPointer(start: nil, count: 0)
        self.producer = producer
        self.count = producer.count
        self.isLoaded = true
    }

    /// Weights whose values were not read: only the count is known.
    public init(unloadedCount count: Int) {
        self.pointer = UnsafeBufferPointer(start: nil, count: 0)
        self.owner = nil
        self.count = count
        self.isLoaded = false
    }

    /// Calls `body` with the values (empty when not loaded). Computed values
    /// are computed in full here, once, and kept.
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        if let producer {
            let storage = producer.materialized()
            return try withExtendedLifetime(storage) { try body(storage.buffer) }
        }
        return try withExtendedLifetime(owner) { try body(pointer) }
    }

    /// The values' memory, for writers that hand it to a serializer without
    /// copying. Valid only while this value (or a copy of it) is alive;
    /// empty when not loaded. Computed values are computed in full first:
    /// a writer streams them with `withChunk` instead.
    public var unsafeBuffer: UnsafeBufferPointer<Float> { producer?.materialized().buffer ?? pointer }

    /// Whether the values are computed on demand (and best streamed with
    /// `withChunk`) rather than lying in memory.
    public var isComputed: Bool { producer != nil }

    /// Number of chunks `withChunk` hands the values out in: one when they
    /// lie in memory, else as many as `WeightProducer` computes them in.
    public var chunkCount: Int { producer?.chunkCount ?? (count > 0 ? 1 : 0) }

    /// Lets the source of computed values go once a writer has written
    /// every chunk (see `WeightProducer.releaseSource`); nothing otherwise.
    public func releaseSource() {
        producer?.releaseSource()
    }

    /// Calls `body` with chunk `index` of the values and the index of its
    /// first value (see `WeightProducer.withChunk`); any thread may call it.
    public func withChunk<R>(_ index: Int, _ body: (_ start: Int, _ values: UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        if let producer { return try producer.withChunk(index, body) }
        precondition(index == 0, "weights in memory are one chunk")
        return try withUnsafeBufferPointer { try body(0, $0) }
    }

    /// Number of pieces `withPiece` hands the values out in: the producer's
    /// chunks, or pieces of `size` values of weights in memory (so that a
    /// writer can spread a large tensor in memory over the cores too).
    public func pieceCount(size: Int) -> Int {
        isComputed ? chunkCount : (count + size - 1) / size
    }

    /// Calls `body` with piece `index` of `pieceCount(size:)` and the index
    /// of its first value; any thread may call it.
    public func withPiece<R>(_ index: Int, size: Int, _ body: (_ start: Int, _ values: UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        if isComputed { return try withChunk(index, body) }
        return try withUnsafeBufferPointer { all in
            let first = index * size
            return try body(first, UnsafeBufferPointer(rebasing: all[first..<min(first + size, all.count)]))
        }
    }

    /// Rewrites the values with `body`, which works on any range of them
    /// (`start` is the first one's index), so that it need not run now:
    /// values these weights alone own are rewritten in place at once;
    /// shared, borrowed or computed ones (copy-on-write; a mapped file is
    /// never written) become computed, `body` applied to each stretch as it
    /// is produced. Folding a batch norm into 200 MB of
    /// convolution weights on their way to the output file costs no memory.
    /// Weights that were not loaded stay so (a summary folds layers too).
    public mutating func update(chunkwise body: @escaping WeightProducer.Fill) {
        guard isLoaded else { return }
        if let producer {
            self.producer = producer.then(body)
        } else if owner is FloatStorage, isKnownUniquelyReferenced(&owner) {
            body(0, UnsafeMutableBufferPointer(mutating: pointer))
        } else {
            nonisolated(unsafe) let source = pointer
            let keeper = owner
            let copied = WeightProducer(count: count, rowLength: 1) { start, target in
                withExtendedLifetime(keeper) {
                    _ = target.initialize(from: UnsafeBufferPointer(rebasing: source[start..<start + target.count]))
                }
            }
            self = Weights(producer: copied.then(body))
        }
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
