import ModelFormat

/// Add, multiply, maximum, minimum and average of one or more inputs, each
/// broadcast to the output shape ([1,1,1], [C,1,1], [1,H,W] or [C,H,W]).
/// With one input, add and multiply apply their constant.
struct ElementwiseKernel: Kernel {
    enum Combine { case add, multiply, maximum, minimum, average }
    let combine: Combine
    let constant: Float
    let inputShapes: [TensorShape]
    let output: TensorShape

    func run(_ inputs: [Tensor], _ outputs: inout [Tensor]) {
        let count = output.count
        outputs[0].values.withUnsafeMutableBufferPointer { y in
            broadcast(inputs[0], into: y)
            if inputs.count == 1 {
                switch combine {
                case .add: for i in 0..<count { y[i] += constant }
                case .multiply: for i in 0..<count { y[i] *= constant }
                default: break
                }
                return
            }
            for input in inputs.dropFirst() {
                input.values.withUnsafeBufferPointer { x in
                    let (sc, sh, sw) = broadcastStrides(input.shape)
                    var i = 0
                    for c in 0..<output.channels {
                        for h in 0..<output.height {
                            let row = c * sc + h * sh
                            for w in 0..<output.width {
                                let v = x[row + w * sw]
                                switch combine {
                                case .add, .average: y[i] += v
                                case .multiply: y[i] *= v
                                case .maximum: y[i] = max(y[i], v)
                                case .minimum: y[i] = min(y[i], v)
                                }
                                i += 1
                            }
                        }
                    }
                }
            }
            if combine == .average {
                let scale = 1 / Float(inputs.count)
                for i in 0..<count { y[i] *= scale }
            }
        }
    }

    func broadcast(_ input: Tensor, into y: UnsafeMutableBufferPointer<Float>) {
        if input.shape == output {
            input.values.withUnsafeBufferPointer { _ = y.update(fromContentsOf: $0) }
            return
        }
        let (sc, sh, sw) = broadcastStrides(input.shape)
        input.values.withUnsafeBufferPointer { x in
            var i = 0
            for c in 0..<output.channels {
                for h in 0..<output.height {
                    for w in 0..<output.width {
                        y[i] = x[c * sc + h * sh + w * sw]
                        i += 1
                    }
                }
            }
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
        self.scaleShape = TensorShape(dimensions: scaleShape) ?? TensorShape(channels: scale.count)
        self.biasShape = TensorShape(dimensions: biasShape) ?? TensorShape(channels: max(bias.count, 1))
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
