import CDNNL
import Dispatch
import Threads

/// Throughput mode: many inputs, one whole prediction per core at a time.
///
/// One prediction alone splits its layers over every core (`parallelFor`,
/// the bands of `MatrixProduct`), which costs a hand-off per layer. With
/// many inputs it is faster to give each core whole predictions: the
/// threads that run them mark themselves, and the kernels they run stay on
/// the thread. The cores are never shared: inputs in parallel times threads
/// per prediction is the core count.
public enum Throughput {
    /// Calls `body(index)` for every index in 0..<count, on as many threads
    /// as there are cores (each taking the next index when done), with the
    /// kernels of each call single-threaded. Returns the results in index
    /// order. `body` must be safe to call concurrently (`Network.predict` is).
    public static func map<T>(_ count: Int, _ body: (Int) -> T) -> [T] {
        let workers = min(ProcessorCount.online, count)
        guard workers > 1 else { return (0..<count).map(body) }
        var results = [T?](repeating: nil, count: count)
        let indices = IndexDispenser(count)
        results.withUnsafeMutableBufferPointer { slots in
            withoutActuallyEscaping(body) { body in
                // Each index is handed out once, so each slot is written by one thread.
                let shared = UncheckedSendable((slots, body))
                DispatchQueue.concurrentPerform(iterations: workers) { _ in
                    let (slots, body) = shared.value
                    // The caller's thread takes part: it is left as it was (marked when nested).
                    let wasMarked = SerialKernels.isMarked
                    SerialKernels.mark()
                    defer { if !wasMarked { SerialKernels.unmark() } }
                    while let index = indices.next() { slots[index] = body(index) }
                }
            }
        }
        return results.map { $0! }
    }
}

/// Hands out 0, 1, ... count - 1 once each, to any thread.
private final class IndexDispenser: @unchecked Sendable {
    private let lock = Lock()
    private var taken = 0
    private let count: Int

    init(_ count: Int) { self.count = count }

    func next() -> Int? {
        lock.locked {
            guard taken < count else { return nil }
            defer { taken += 1 }
            return taken
        }
    }
}

/// Whether this thread runs whole predictions in throughput mode, its
/// kernels single-threaded.
enum SerialKernels {
    private final class Mark { var isSet = false }
    private static let marks = ThreadLocal { Mark() }

    static var isMarked: Bool { marks.value.isSet }

    /// Also gives this thread's oneDNN convolutions one OpenMP thread.
    static func mark() {
        marks.value.isSet = true
        convolution_set_threads(1)
    }

    static func unmark() {
        marks.value.isSet = false
        convolution_set_threads(convolution_default_threads())
    }
}
