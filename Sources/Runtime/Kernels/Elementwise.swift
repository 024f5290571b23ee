import ModelFormat

/// Add, multiply, maximum, minimum and average of one or more inputs of
/// any rank, each broadcast to the output shape as numpy does. With one
/// input, add and multiply apply their constant. Inputs of the output's
/// size (a residual connection's) take a vectorized path shared among the cores.
struct ElementwiseKernel: ReLUFusing {
    enum Combine { case add, multiply, maximum, minimum, average }
    let combine: Combine
    let constant: Float
    let output: TensorShape
    /// Also applies max(0, y) (a ReLU folded in by the network).
    var fusedReLU = false

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            guard let base = y.baseAddress else { return }
            if inputs.count > 1 && inputs.allSatisfy({ $0.values.count == y.count }) {
                withPointers(inputs[...], []) { pointers in
                    parallelFor(y.count, minimumWork: 4096, cost: inputs.count) { range in
                        let out = base + range.lowerBound
                        out.update(from: pointers[0] + range.lowerBound, count: range.count)
                        for x in pointers.dropFirst() { combine(into: out, x + range.lowerBound, stride: 1, count: range.count) }
                        finish(out, count: range.count, inputs: inputs.count)
                    }
                }
                return
            }
            inputs[0].values.withUnsafeBufferPointer { x in
                BroadcastRows(inputs[0].shape, to: output).forEach { out, from, stride, length in
                    copy(into: base + out, x.baseAddress! + from, stride: stride, count: length)
                }
            }
            if inputs.count == 1 {
                switch combine {
                case .add: for i in y.indices { y[i] += constant }
                case .multiply: for i in y.indices { y[i] *= constant }
                default: break
                }
            }
            for input in inputs.dropFirst() {
                input.values.withUnsafeBufferPointer { x in
                    BroadcastRows(input.shape, to: output).forEach { out, from, stride, length in
                        combine(into: base + out, x.baseAddress! + from, stride: stride, count: length)
                    }
                }
            }
            finish(base, count: y.count, inputs: inputs.count)
        }
    }

    /// out[i] = x[i * stride] for i in 0..<count.
    private func copy(into out: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>, stride: Int, count: Int) {
        if stride == 1 { out.update(from: x, count: count) } else { for i in 0..<count { out[i] = x[i * stride] } }
    }

    /// out[i] = out[i] (combined with) x[i * stride] for i in 0..<count.
    private func combine(into out: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>, stride: Int, count: Int) {
        switch combine {
        case .add, .average: Self.apply(out, x, stride, count, +)
        case .multiply: Self.apply(out, x, stride, count, *)
        case .maximum: Self.apply(out, x, stride, count, max)
        case .minimum: Self.apply(out, x, stride, count, min)
        }
    }

    @inline(__always)
    private static func apply(_ out: UnsafeMutablePointer<Float>, _ x: UnsafePointer<Float>, _ stride: Int, _ count: Int,
                              _ operation: (Float, Float) -> Float) {
        if stride == 1 {
            for i in 0..<count { out[i] = operation(out[i], x[i]) }
        } else {
            for i in 0..<count { out[i] = operation(out[i], x[i * stride]) }
        }
    }

    /// The average's division and the folded ReLU, over count values.
    private func finish(_ out: UnsafeMutablePointer<Float>, count: Int, inputs: Int) {
        if combine == .average && inputs > 1 {
            let scale = 1 / Float(inputs)
            for i in 0..<count { out[i] *= scale }
        }
        if fusedReLU { for i in 0..<count { out[i] = max(out[i], 0) } }
    }

    /// Calls `body` with the values of every tensor (none empty).
    private func withPointers(_ tensors: ArraySlice<Tensor>, _ pointers: [UnsafePointer<Float>],
                              _ body: ([UnsafePointer<Float>]) -> Void) {
        guard let first = tensors.first else { return body(pointers) }
        first.values.withUnsafeBufferPointer { withPointers(tensors.dropFirst(), pointers + [$0.baseAddress!], body) }
    }
}

/// Walks the rows (last axis) of an output shape together with the
/// matching positions of an input broadcast to it (numpy's rules: shapes
/// aligned at the last axis, a size-1 axis repeated). An input of the
/// output's size is one row: the whole tensor, read in order.
struct BroadcastRows {
    /// The input's element stride along each output axis (0 where it repeats).
    let strides: [Int]
    let output: TensorShape
    let isWhole: Bool

    init(_ input: TensorShape, to output: TensorShape) {
        strides = broadcastStrides(of: input.dimensions, to: output.dimensions)
        self.output = output
        isWhole = input.count == output.count
    }

    /// Calls `body(outputOffset, inputOffset, inputStride, length)` for each row.
    func forEach(_ body: (Int, Int, Int, Int) -> Void) {
        if isWhole { return body(0, 0, 1, output.count) }
        forEachOffset(Array(output.dimensions.dropLast()), strides: Array(strides.dropLast())) { row, from in
            body(row * output.width, from, strides[output.rank - 1], output.width)
        }
    }
}

/// The element strides of a row-major `input` along each axis of the
/// `output` it broadcasts to (numpy's rules: aligned at the last axis, 0
/// where a size-1 axis repeats).
func broadcastStrides(of input: [Int], to output: [Int]) -> [Int] {
    let padded = Array(repeating: 1, count: output.count - input.count) + input
    var strides = Array(repeating: 0, count: output.count)
    var step = 1
    for axis in output.indices.reversed() {
        strides[axis] = padded[axis] == 1 ? 0 : step
        step *= padded[axis]
    }
    return strides
}

/// Visits every position of `dimensions` in row-major order, with the
/// offset `sum(index[axis] * strides[axis])` into another tensor: the walk
/// behind broadcasting (stride 0 on a repeated axis) and transposing
/// (the input's strides permuted). No dimensions: one position, offset 0.
func forEachOffset(_ dimensions: [Int], strides: [Int], _ body: (_ position: Int, _ offset: Int) -> Void) {
    let count = dimensions.reduce(1, *)
    var index = [Int](repeating: 0, count: dimensions.count)
    var offset = 0
    for position in 0..<count {
        body(position, offset)
        var axis = dimensions.count - 1
        while axis >= 0 {
            index[axis] += 1
            offset += strides[axis]
            if index[axis] < dimensions[axis] { break }
            offset -= strides[axis] * index[axis]
            index[axis] = 0
            axis -= 1
        }
    }
}

/// y = scale * x + bias with constants of shape [1], [C], [1, H, W] or
/// [C, H, W], broadcast to the input: batch norm (folded once at compile
/// time), scale layers and bias layers.
struct AffineKernel: Kernel {
    let scale: [Float]
    let scaleShape: TensorShape
    let bias: [Float]
    let biasShape: TensorShape
    let shape: TensorShape

    init(scale: [Float], scaleShape: [Int], bias: [Float], biasShape: [Int], shape: TensorShape) {
        self.scale = scale
        self.bias = bias
        self.shape = shape
        self.scaleShape = TensorShape(featureShape: scaleShape) ?? TensorShape(channels: scale.count)
        self.biasShape = TensorShape(featureShape: biasShape) ?? TensorShape(channels: max(bias.count, 1))
    }

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let (sc, sh, sw) = broadcastStrides(scaleShape)
        let (bc, bh, bw) = broadcastStrides(biasShape)
        let hasBias = !bias.isEmpty
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                var i = 0
                for c in 0..<shape.channels {
                    for h in 0..<shape.height {
                        for w in 0..<shape.width {
                            let b = hasBias ? bias[c * bc + h * bh + w * bw] : 0
                            y[i] = scale[c * sc + h * sh + w * sw] * x[i] + b
                            i += 1
                        }
                    }
                }
            }
        }
    }

    /// Batch norm with stored statistics: scale = gamma / sqrt(var + eps),
    /// bias = beta - mean * scale.
    static func batchNorm(_ norm: BatchNorm, shape: TensorShape) -> AffineKernel {
        let (gamma, beta, mean, variance) = (norm.gamma.values, norm.beta.values, norm.mean.values, norm.variance.values)
        let scale = (0..<norm.channels).map { gamma[$0] / (variance[$0] + norm.epsilon).squareRoot() }
        let bias = (0..<norm.channels).map { beta[$0] - mean[$0] * scale[$0] }
        return AffineKernel(scale: scale, scaleShape: [norm.channels], bias: bias, biasShape: [norm.channels], shape: shape)
    }
}

/// Element strides of a constant broadcast over [C, H, W]: 0 along its size-1 axes.
func broadcastStrides(_ shape: TensorShape) -> (Int, Int, Int) {
    (shape.channels == 1 ? 0 : shape.height * shape.width, shape.height == 1 ? 0 : shape.width, shape.width == 1 ? 0 : 1)
}

/// Batch norm that computes mean and variance of each channel over H and W
/// from the input itself (instance normalization).
struct InstanceNormKernel: Kernel {
    let norm: BatchNorm
    let shape: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let pixels = shape.planeSize
        let (gamma, beta) = (norm.gamma.values, norm.beta.values)
        inputs[0].values.withUnsafeBufferPointer { x in
            outputs[0].values.withUnsafeMutableBufferPointer { y in
                for c in 0..<shape.channels {
                    let range = c * pixels..<(c + 1) * pixels
                    let mean = range.reduce(0) { $0 + x[$1] } / Float(pixels)
                    let variance = range.reduce(0) { $0 + (x[$1] - mean) * (x[$1] - mean) } / Float(pixels)
                    let scale = gamma[c] / (variance + norm.epsilon).squareRoot()
                    for i in range { y[i] = (x[i] - mean) * scale + beta[c] }
                }
            }
        }
    }
}

extension Elementwise: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        let combine: ElementwiseKernel.Combine = switch kind {
        case .add: .add
        case .multiply: .multiply
        case .maximum: .maximum
        case .minimum: .minimum
        case .average: .average
        }
        return ElementwiseKernel(combine: combine, constant: constant, output: outputs[0])
    }
}

extension BatchNorm: KernelMaking {
    /// Folded once into scale and bias, unless it computes its own statistics.
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        computeMeanVar ? InstanceNormKernel(norm: self, shape: inputs[0]) : AffineKernel.batchNorm(self, shape: inputs[0])
    }
}

extension Scale: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        AffineKernel(scale: scale.values, scaleShape: shape, bias: bias?.values ?? [], biasShape: biasShape, shape: inputs[0])
    }
}

extension Bias: KernelMaking {
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel {
        AffineKernel(scale: [1], scaleShape: [1], bias: bias.values, biasShape: shape, shape: inputs[0])
    }
}
