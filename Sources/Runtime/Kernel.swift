import Dispatch
import ModelFormat
import Threads

/// One compiled layer: knows its input and output shapes and its weights,
/// and computes its outputs from its inputs. Output arrays arrive sized
/// (from the executor's pool) with undefined contents.
protocol Kernel {
    func run(_ inputs: [Tensor], _ outputs: inout [Tensor])
    /// Bytes of working memory the kernel needs besides its inputs and
    /// outputs (an im2col matrix, in the thread's `Scratch`), for the
    /// network's memory budget.
    var scratchBytes: Int { get }
}

extension Kernel {
    var scratchBytes: Int { 0 }
}

/// A kernel that can apply a ReLU to its output as it finishes it.
protocol ReLUFusing: Kernel {
    var fusedReLU: Bool { get set }
}

/// A kernel with a last step once the network is planned (the ReLUs folded
/// in): a library's kernel for the layer, made for the kernels chosen. With
/// `discardingCopiedWeights`, weights the library copies are read by nothing
/// else afterwards: their pages may go back to the system.
protocol Preparing: Kernel {
    func prepared(_ choice: KernelChoice, discardingCopiedWeights: Bool) -> any Kernel
}

/// Splits `count` items into chunks run on all cores; small jobs run
/// inline, and so does everything on a thread of `Throughput.map`.
@inline(__always)
func parallelFor(_ count: Int, minimumWork: Int = 1, cost: Int = 1, _ body: (Range<Int>) -> Void) {
    let workers = SerialKernels.isMarked ? 1 : min(ProcessorCount.online, count)
    let (work, overflow) = count.multipliedReportingOverflow(by: cost)
    if workers <= 1 || (!overflow && work < 32_768) || count < minimumWork * 2 {
        body(0..<count)
        return
    }
    let chunk = (count + workers - 1) / workers
    // The chunks write disjoint parts of the output, which is what makes
    // handing the (non-Sendable) body to several threads safe.
    withoutActuallyEscaping(body) { body in
        let shared = UncheckedSendable(body)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let start = worker * chunk
            let end = min(start + chunk, count)
            if start < end { shared.value(start..<end) }
        }
    }
}

/// The product of `factors` as a work estimate for `parallelFor`: Int.max
/// when it overflows (sizes from a hostile file must not trap).
func workCost(_ factors: Int...) -> Int {
    factors.checkedProduct ?? .max
}

/// Hands a value to other threads when the caller guarantees it is safe.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Per-spatial-position helpers for [C, H, W] buffers.
extension TensorShape {
    var planeSize: Int { height * width }
}
