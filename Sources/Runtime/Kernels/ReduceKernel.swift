import Foundation
import ModelFormat

/// Every input value folded, in the input's order, into the output value
/// it reduces to (the output's strides, 0 along a reduced axis); averages
/// divided and L2 norms rooted after. Maximum, minimum and argmax keep the
/// first value and replace it by each larger (smaller) one after.
struct ReduceKernel: Kernel {
    let mode: Reduce.Mode
    let epsilon: Float
    let input: TensorShape
    /// The output offset each input axis moves (0 along a reduced axis).
    let strides: [Int]

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (mode, epsilon) = (mode, epsilon)
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                switch mode {
                case .max, .min, .argmax:
                    var seen = [Int](repeating: 0, count: y.count), best = [Float](repeating: 0, count: y.count)
                    forEachOffset(input.dimensions, strides: strides) { i, to in
                        let value = x[i], index = seen[to]
                        seen[to] += 1
                        guard index == 0 || (mode == .min ? value < best[to] : best[to] < value) else { return }
                        best[to] = value
                        y[to] = mode == .argmax ? Float(index) : value
                    }
                case .sum, .average, .product, .logSum, .sumSquare, .l1, .l2:
                    y.update(repeating: mode == .product ? 1 : 0)
                    forEachOffset(input.dimensions, strides: strides) { i, to in
                        let value = x[i]
                        switch mode {
                        case .product: y[to] *= value
                        case .logSum: y[to] += log(value + epsilon)  // a sum of logarithms (NeuralNetwork.proto's LOGSUM)
                        case .sumSquare, .l2: y[to] += value * value
                        case .l1: y[to] += abs(value)
                        default: y[to] += value
                        }
                    }
                    if mode == .average, !y.isEmpty {
                        let count = Float(x.count / y.count)
                        for i in y.indices { y[i] /= count }
                    }
                    if mode == .l2 {
                        for i in y.indices { y[i] = y[i].squareRoot() }
                    }
                }
            }
        }
    }
}

extension Reduce: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let input = inputs[0], reduced = axisIndices(of: input)!  // checked by shape inference
        var strides = Array(repeating: 0, count: input.rank)
        var step = 1
        for axis in (0..<input.rank).reversed() where !reduced.contains(axis) {
            strides[axis] = step
            step *= input.dimensions[axis]
        }
        return ReduceKernel(mode: mode, epsilon: epsilon, input: input, strides: strides)
    }
}
