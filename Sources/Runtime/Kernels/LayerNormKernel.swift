import ModelFormat

/// Layer normalization over each group of `size` values `inner` apart
/// (the input viewed as [outer, size, inner]; `inner` is 1 for the last
/// axes): the mean, then the biased variance of the centered values (two
/// passes, summed in Double), then
/// `(x - mean) / sqrt(variance + epsilon) * gamma + beta`.
struct LayerNormKernel: Kernel {
    let size: Int
    let inner: Int
    let epsilon: Float
    let gamma: [Float]?
    let beta: [Float]?

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        guard size > 0, inner > 0 else { return }
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                for block in stride(from: 0, to: x.count, by: size * inner) {
                    for base in block..<block + inner { normalize(x, y, base) }
                }
            }
        }
    }

    /// The group at `base`, `base + inner`, ... (`size` values).
    private func normalize(_ x: UnsafeBufferPointer<Float>, _ y: UnsafeMutableBufferPointer<Float>, _ base: Int) {
        var sum: Double = 0
        for i in 0..<size { sum += Double(x[base + i * inner]) }
        let mean = Float(sum / Double(size))
        var squares: Double = 0
        for i in 0..<size {
            let centered = Double(x[base + i * inner] - mean)
            squares += centered * centered
        }
        let inverse = 1 / (Float(squares / Double(size)) + epsilon).squareRoot()
        for i in 0..<size {
            var value = (x[base + i * inner] - mean) * inverse
            if let gamma { value *= gamma[i] }
            if let beta { value += beta[i] }
            y[base + i * inner] = value
        }
    }
}

extension LayerNorm: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        // The normalized axes end at `axis` (checked by shape inference).
        let dims = inputs[0].dimensions, end = dims.count + 1 + axis
        return LayerNormKernel(size: dims[(end - normalizedShape.count)..<end].reduce(1, *), inner: dims[end...].reduce(1, *),
                               epsilon: epsilon, gamma: gamma?.values, beta: beta?.values)
    }
}
