#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Threads

/// Weight values that are computed when they are needed rather than when
/// the model is built: a layout change reading a mapped model file, with a
/// batch-norm fold applied on top, say.
///
/// A writer streams them a chunk of whole rows at a time (`withChunk`, on
/// every core at once), so a 200 MB model's weights go from the source file
/// to the output file through buffers that fit in the cache, never through
/// 200 MB of fresh memory. Anything else that reads them (the runtime, a
/// comparison) gets them computed once, in full, and kept (`materialized`).
public final class WeightProducer: @unchecked Sendable {
    /// Writes the values from index `start` on into `target`. `start` and
    /// `target.count` are whole rows (multiples of `rowLength`). Called from
    /// any thread, possibly for several ranges at once.
    public typealias Fill = @Sendable (_ start: Int, _ target: UnsafeMutableBufferPointer<Float>) -> Void

    /// Number of values.
    public let count: Int
    /// The granularity of `fill`: values per row of the layout it computes.
    public let rowLength: Int
    private let fill: Fill
    /// Lets go of what the source holds (a mapped file's pages) once the
    /// values were computed in full (`materialized`, or every chunk
    /// written: `releaseSource`); advisory, the source stays readable.
    private let release: (@Sendable () -> Void)?

    // Sendable: `cached` is only read and written under `lock`.
    private let lock = Lock()
    private var cached: FloatStorage?

    /// Values per chunk that `withChunk` aims at: 256 KB, which stays in a
    /// core's L2 cache from being computed to being copied into the file.
    static let chunkValues = 1 << 16
    /// Materializing this many values or more is split across the cores.
    static let parallelCount = 1 << 18

    public init(count: Int, rowLength: Int, release: (@Sendable () -> Void)? = nil, fill: @escaping Fill) {
        precondition(count >= 0 && rowLength > 0 && count % rowLength == 0,
                     "\(count) values do not make rows of \(rowLength)")
        self.count = count
        self.rowLength = rowLength
        self.release = release
        self.fill = fill
    }

    /// The same values with `body` applied to every range after `fill`
    /// (a per-channel scale, say). Nothing is computed now.
    public func then(_ body: @escaping Fill) -> WeightProducer {
        let fill = self.fill
        return WeightProducer(count: count, rowLength: rowLength, release: release) { start, target in
            fill(start, target)
            body(start, target)
        }
    }

    /// All values in memory, computed on first use (split across the cores
    /// when large) and kept for later calls.
    func materialized() -> FloatStorage {
        lock.locked {
            if let cached { return cached }
            let storage = FloatStorage(count: count) { fillAll($0) }
            cached = storage
            release?()
            return storage
        }
    }

    /// Tells the source that the values were written out in full (by a
    /// writer that went through all the chunks), so that it can let go of
    /// its memory, as after `materialized`: a 200 MB model then never holds
    /// its file's pages all at once, and gives them back on the cores that
    /// read them rather than all at exit.
    public func releaseSource() {
        release?()
    }

    /// Computes all values into `target` (count values).
    private func fillAll(_ target: UnsafeMutableBufferPointer<Float>) {
        let rows = count / rowLength
        let parts = count >= Self.parallelCount ? min(rows, 2 * ProcessorCount.online) : 1
        guard parts > 1, let base = target.baseAddress else {
            if count > 0 { fill(0, target) }
            return
        }
        nonisolated(unsafe) let start = base
        let (fill, rowLength) = (self.fill, self.rowLength)
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let (first, last) = (part * rows / parts, (part + 1) * rows / parts)
            fill(first * rowLength, UnsafeMutableBufferPointer(start: start + first * rowLength, count: (last - first) * rowLength))
        }
    }

    /// Values in each chunk a writer asks for: whole rows, about
    /// `chunkValues` (one row when rows are longer), and the rest in the last.
    var chunkLength: Int { min(count, max(1, Self.chunkValues / rowLength) * rowLength) }

    /// Number of chunks a writer computes the values in (`withChunk`).
    public var chunkCount: Int { count == 0 ? 0 : (count + chunkLength - 1) / chunkLength }

    /// Computes chunk `index` into a buffer of its own (or takes it from the
    /// values in memory, once `materialized`) and calls `body` with it and
    /// the index of its first value; the values are valid only during the
    /// call. Several chunks may be computed at once on different threads:
    /// the writer hands each to the file on the core that computed it.
    public func withChunk<R>(_ index: Int, _ body: (_ start: Int, _ values: UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        let start = index * chunkLength
        precondition(index >= 0 && start < count, "chunk \(index) of \(chunkCount)")
        if let cached = lock.locked({ cached }) {
            return try body(start, UnsafeBufferPointer(rebasing: cached.buffer[start..<min(start + chunkLength, count)]))
        }
        let values = UnsafeMutableBufferPointer<Float>.allocate(capacity: min(chunkLength, count - start))
        defer { values.deallocate() }
        fill(start, values)
        return try body(start, UnsafeBufferPointer(values))
    }
}
