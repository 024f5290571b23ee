import ModelFormat

/// x / sqrt(sum(x²) + epsilon) over the whole [C, H, W] tensor.
struct L2NormalizeKernel: Kernel {
    let epsilon: Float

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let x = inputs[0].values
        let norm = (x.reduce(0) { $0 + $1 * $1 } + epsilon).squareRoot()
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            for i in 0..<x.count { y[i] = x[i] / norm }
        }
    }
}

extension L2Normalize: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        L2NormalizeKernel(epsilon: epsilon)
    }
}
