import Foundation
import ModelFormat

/// A tensor seen along axis `axis` (counted from the front) as [outer,
/// size, inner]: the values of a line lie `inner` apart.
enum AxisView {
    static func of(_ shape: TensorShape, axis: Int) -> (outer: Int, size: Int, inner: Int) {
        (shape.dimensions[..<axis].reduce(1, *), shape.dimensions[axis], shape.dimensions[(axis + 1)...].reduce(1, *))
    }
}

/// Softmax along one axis: the tensor seen as [outer, size, inner], each
/// of the outer x inner lines of `size` values normalized on its own
/// (`exp(x - max) / sum(exp(x - max))`). The [C, H, W] softmax is the
/// channel axis of it.
struct AxisSoftmaxKernel: Kernel {
    let outer: Int
    let size: Int
    let inner: Int

    init(_ shape: TensorShape, axis: Int) {
        (outer, size, inner) = AxisView.of(shape, axis: axis)
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        forEachLine(inputs[0], &outputs[0]) { x, y, base, largest in
            var sum: Float = 0
            for i in 0..<size {
                let e = exp(x[base + i * inner] - largest)
                y[base + i * inner] = e
                sum += e
            }
            for i in 0..<size { y[base + i * inner] /= sum }
        }
    }

    /// Calls `body` for each line with the input and output values, the
    /// line's first offset (its values lie at `base + i * inner`, i < `size`)
    /// and its largest value.
    func forEachLine(_ input: Tensor, _ output: inout Tensor,
                     _ body: (UnsafeBufferPointer<Float>, UnsafeMutableBufferPointer<Float>, Int, Float) -> Void) {
        input.values.withUnsafeBufferPointer { x in
            output.values.withUnsafeMutableBufferPointer { y in
                for o in 0..<outer {
                    for p in 0..<inner {
                        let base = o * size * inner + p
                        var largest = -Float.infinity
                        for i in 0..<size { largest = max(largest, x[base + i * inner]) }
                        body(x, y, base, largest)
                    }
                }
            }
        }
    }
}

extension Softmax: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        AxisSoftmaxKernel(inputs[0], axis: inputs[0].axisIndex(axis)!)  // checked by shape inference
    }
}

/// Output axis i is input axis `axes[i]`: each output element read from
/// the input at the permuted strides.
struct TransposeKernel: Kernel {
    let output: TensorShape
    /// The input's stride along each output axis.
    let strides: [Int]

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        gather(inputs[0].values, into: &outputs[0].values, shape: output, start: 0, strides: strides)
    }
}

/// `y` in row-major order of `shape`, each element read from `x` at
/// `start + sum(index[axis] * strides[axis])`: a row at a time along the
/// last axis. Transposes and slices are this read.
func gather(_ x: [Float], into y: inout [Float], shape: TensorShape, start: Int, strides: [Int]) {
    let (width, step) = (shape.width, strides[shape.rank - 1])
    x.withUnsafeBufferPointer { x in
        y.withUnsafeMutableBufferPointer { y in
            forEachOffset(Array(shape.dimensions.dropLast()), strides: Array(strides.dropLast())) { row, from in
                let (out, first) = (row * width, start + from)
                for i in 0..<width { y[out + i] = x[first + i * step] }
            }
        }
    }
}

extension Transpose: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        var inputStrides = Array(repeating: 1, count: inputs[0].rank)
        for axis in stride(from: inputs[0].rank - 2, through: 0, by: -1) {
            inputStrides[axis] = inputStrides[axis + 1] * inputs[0].dimensions[axis + 1]
        }
        return TransposeKernel(output: outputs[0], strides: axes.map { inputStrides[$0] })
    }
}

/// numpy's matmul: for each batch index (broadcast), an [M, K] x [K, N]
/// product by BLAS; or the input's rows times constant weights stored
/// [N, K], plus a bias.
struct MatMulKernel: Kernel {
    let product: MatMul
    let a: TensorShape
    let b: TensorShape?
    let output: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        if let weights = product.weights {
            let (n, k) = (product.outputChannels, product.inputChannels)
            let rows = a.count / k
            inputs[0].values.withUnsafeBufferPointer { x in
                weights.withUnsafeBufferPointer { w in
                    outputs[0].values.withUnsafeMutableBufferPointer { y in
                        MatrixProduct.multiply(m: rows, n: n, k: k, x.baseAddress!, lda: k, w.baseAddress!, ldb: k, transposeB: true,
                                               y.baseAddress!, ldc: n)
                        guard let bias = product.bias else { return }
                        bias.withUnsafeBufferPointer { bias in
                            for row in 0..<rows { for j in 0..<n { y[row * n + j] += bias[j] } }
                        }
                    }
                }
            }
            return
        }
        guard let b else { return }
        let (m, n) = (output.height, output.width)
        let k = product.transposeA ? a.height : a.width
        // Each output matrix's A and B, counted in matrices (batch axes broadcast).
        let batch = Array(output.dimensions.dropLast(2))
        var aOffsets: [Int] = [], bOffsets: [Int] = []
        forEachOffset(batch, strides: broadcastStrides(of: Array(a.dimensions.dropLast(2)), to: batch)) { _, from in aOffsets.append(from) }
        forEachOffset(batch, strides: broadcastStrides(of: Array(b.dimensions.dropLast(2)), to: batch)) { _, from in bOffsets.append(from) }
        inputs[0].values.withUnsafeBufferPointer { x in
            inputs[1].values.withUnsafeBufferPointer { z in
                outputs[0].values.withUnsafeMutableBufferPointer { y in
                    for index in aOffsets.indices {
                        MatrixProduct.multiply(m: m, n: n, k: k, x.baseAddress! + aOffsets[index] * a.height * a.width,
                                               lda: a.width, transposeA: product.transposeA,
                                               z.baseAddress! + bOffsets[index] * b.height * b.width, ldb: b.width,
                                               transposeB: product.transposeB, y.baseAddress! + index * m * n, ldc: n)
                    }
                }
            }
        }
    }
}

extension MatMul: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        MatMulKernel(product: self, a: inputs[0], b: inputs.count > 1 ? inputs[1] : nil, output: outputs[0])
    }
}
