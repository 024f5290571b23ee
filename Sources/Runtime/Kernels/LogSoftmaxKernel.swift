import Foundation
import ModelFormat

/// Log-softmax along one axis, each line of the [outer, size, inner] view
/// on its own: `(x - max) - log(sum(exp(x - max)))`. The largest value
/// subtracted first keeps every exp at most 1 and the sum at least 1, so
/// a value far below the largest gives a large negative number, not -inf.
struct LogSoftmaxKernel: Kernel {
    let lines: AxisSoftmaxKernel

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (size, inner) = (lines.size, lines.inner)
        lines.forEachLine(inputs[0], &outputs[0]) { x, y, base, largest in
            var sum: Float = 0
            for i in 0..<size { sum += exp(x[base + i * inner] - largest) }
            let logSum = log(sum)
            for i in 0..<size { y[base + i * inner] = (x[base + i * inner] - largest) - logSum }
        }
    }
}

extension LogSoftmax: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        LogSoftmaxKernel(lines: AxisSoftmaxKernel(inputs[0], axis: inputs[0].axisIndex(axis)!))  // checked by shape inference
    }
}
