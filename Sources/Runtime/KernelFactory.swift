import ModelFormat

/// The kernel that executes `node`, given its input and output shapes.
func makeKernel(_ node: Node, inputs: [TensorShape], outputs: [TensorShape]) throws -> any Kernel {
    try checkLoaded(node)
    let input = inputs.first ?? outputs[0]
    let output = outputs[0]
    switch node.operation {
    case .convolution(let conv):
        let window = Window(conv, input: input, output: output)
        return conv.isDeconvolution ? DeconvolutionKernel(conv: conv, window: window) : ConvolutionKernel(conv: conv, window: window)
    case .pooling(let pool):
        return PoolingKernel(pool, input: input, output: output)
    case .innerProduct(let product):
        return InnerProductKernel(product: product)
    case .activation(let activation):
        return ActivationKernel(activation: activation, shape: input)
    case .batchNorm(let norm):
        return norm.computeMeanVar ? InstanceNormKernel(norm: norm, shape: input) as any Kernel
                                   : AffineKernel.batchNorm(norm, shape: input)
    case .scale(let scale):
        return AffineKernel(scale: scale.scale.values, scaleShape: scale.shape, bias: scale.bias?.values ?? [],
                            biasShape: scale.biasShape, shape: input)
    case .bias(let bias):
        return AffineKernel(scale: [1], scaleShape: [1], bias: bias.bias.values, biasShape: bias.shape, shape: input)
    case .lrn(let lrn):
        return LRNKernel(lrn: lrn, shape: input)
    case .softmax:
        return AxisSoftmaxKernel(input, axis: input.rank - 3)
    case .concat:
        return ConcatKernel()
    case .add(let constant):
        return ElementwiseKernel(combine: .add, constant: constant, inputShapes: inputs, output: output)
    case .multiply(let constant):
        return ElementwiseKernel(combine: .multiply, constant: constant, inputShapes: inputs, output: output)
    case .maximum:
        return ElementwiseKernel(combine: .maximum, constant: 0, inputShapes: inputs, output: output)
    case .minimum:
        return ElementwiseKernel(combine: .minimum, constant: 0, inputShapes: inputs, output: output)
    case .average:
        return ElementwiseKernel(combine: .average, constant: 0, inputShapes: inputs, output: output)
    case .unary(let unary):
        return UnaryKernel(unary: unary)
    case .l2Normalize(let epsilon):
        return L2NormalizeKernel(epsilon: epsilon)
    case .flatten(let order):
        return CopyKernel(input: input, output: output, channelLast: order == .channelLast)
    case .reshape(_, let order):
        return CopyKernel(input: input, output: output, channelLast: order == .channelLast)
    case .permute(let axes):
        return PermuteKernel(axes: axes, input: input)
    case .padding(let padding):
        return PaddingKernel(padding: padding, input: input, output: output)
    case .crop(.edges(let edges)):
        return WindowKernel(input: input, output: output, start: (0, edges.top, edges.left), stride: (1, 1, 1))
    case .crop(.like(let offset)):
        let (top, left) = offset.count == 2 ? (offset[0], offset[1]) : (0, 0)
        return WindowKernel(input: input, output: output, start: (0, top, left), stride: (1, 1, 1))
    case .slice(let slice):
        return WindowKernel.slice(slice, input: input, output: output)
    case .split:
        return SplitKernel()
    case .reduce(let reduce):
        return ReduceKernel(reduce: reduce, input: input)
    case .upsample(let upsample):
        return UpsampleKernel(upsample: upsample, input: input)
    case .constant(_, let data):
        return ConstantKernel(data: data)
    case .defined(let op):
        guard let making = op.definition as? any KernelMaking else {
            throw RuntimeError("layer '\(node.name)': the runtime cannot execute the operation '\(op.definition.kindName)'")
        }
        return making.kernel(inputs: inputs, outputs: outputs)
    }
}

/// How the runtime executes one `OpDefinition`: a new operation conforms
/// here with its kernel.
protocol KernelMaking: OpDefinition {
    /// The kernel for these (checked) input and output shapes.
    func kernel(inputs: [TensorShape], outputs: [TensorShape]) -> any Kernel
}

/// Weights read structure-only cannot be executed.
private func checkLoaded(_ node: Node) throws {
    let mirror = Mirror(reflecting: node.operation)
    func scan(_ value: Any) -> Bool {
        if let weights = value as? Weights { return weights.isLoaded }
        return Mirror(reflecting: value).children.allSatisfy { scan($0.value) }
    }
    guard mirror.children.allSatisfy({ scan($0.value) }) else {
        throw RuntimeError("layer '\(node.name)': weights were not loaded (the model was read structure-only)")
    }
}
