import ModelFormat

/// Layer normalization over each group of `size` consecutive values (the
/// last axes): the mean, then the biased variance of the centered values
/// (two passes, summed in Double), then
/// `(x - mean) / sqrt(variance + epsilon) * gamma + beta`.
struct LayerNormKernel: Kernel {
    let size: Int
    let epsilon: Float
    let gamma: [Float]?
    let beta: [Float]?

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        guard size > 0 else { return }
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                for base in stride(from: 0, to: x.count, by: size) {
                    var sum: Double = 0
                    for i in base..<base + size { sum += Double(x[i]) }
                    let mean = Float(sum / Double(size))
                    var squares: Double = 0
                    for i in base..<base + size {
                        let centered = Double(x[i] - mean)
                        squares += centered * centered
                    }
                    let variance = Float(squares / Double(size))
                    let inverse = 1 / (variance + epsilon).squareRoot()
                    for i in 0..<size {
                        var value = (x[base + i] - mean) * inverse
                        if let gamma { value *= gamma[i] }
                        if let beta { value += beta[i] }
                        y[base + i] = value
                    }
                }
            }
        }
    }
}

extension LayerNorm: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        // The normalized shape is the input's last axes (checked by shape inference).
        LayerNormKernel(size: inputs[0].dimensions.suffix(normalizedShape.count).reduce(1, *), epsilon: epsilon,
                        gamma: gamma?.values, beta: beta?.values)
    }
}
