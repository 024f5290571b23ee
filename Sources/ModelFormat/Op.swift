/// What a node computes, with typed attributes. Each case's facts (input
/// count, attribute bounds, shape rule, weights, what inspect shows) are
/// its `definition`, an `OpDefinition`. The named cases are the layers of
/// Core ML's NeuralNetwork format that the frontends produce: they see
/// rank-3 [C, H, W] tensors, except the element-wise ones (add, multiply,
/// maximum, minimum, average, unary, activation), which take any rank.
/// `defined` holds an operation that needs no case of its own (the rank-N
/// ones: `MatMul`, `Softmax`, `Transpose`, `GELU`, `Concat`, `Reshape`,
/// `Slice`, ...); a new operation goes there.
public enum Op: Equatable, Sendable {
    case convolution(Convolution)
    case pooling(Pooling)
    case innerProduct(InnerProduct)
    case activation(Activation)
    case batchNorm(BatchNorm)
    /// Multiplies by constants (per channel, or a full shape), then adds an optional bias.
    case scale(Scale)
    /// Adds constants (per channel, or a full shape).
    case bias(Bias)
    case lrn(LRN)
    /// Element-wise sum of the inputs; with one input, adds `constant`.
    case add(constant: Float)
    /// Element-wise product of the inputs; with one input, multiplies by `constant`.
    case multiply(constant: Float)
    /// Element-wise maximum, minimum or mean of the inputs.
    case maximum
    case minimum
    case average
    case unary(Unary)
    /// Divides by the L2 norm over C, H and W: `x / sqrt(sum(x^2) + epsilon)`.
    case l2Normalize(epsilon: Float)
    /// [C, H, W] -> [C*H*W, 1, 1], reading in C, H, W order (or H, W, C for `.channelLast`).
    case flatten(ChannelOrder)
    case padding(Padding)
    case crop(Crop)
    /// Splits channels evenly into one tensor per output.
    case split
    case upsample(Upsample)
    /// An operation defined in one place (`OpDefinition`): matmul, softmax
    /// along an axis, transpose, GELU, ...
    case defined(DefinedOp)
}

extension Op {
    /// The operation's facts: its attributes' bounds, shape rule, weights,
    /// and what inspect shows (`OpDefinition`).
    public var definition: any OpDefinition {
        switch self {
        case .convolution(let convolution): convolution
        case .pooling(let pooling): pooling
        case .innerProduct(let product): product
        case .activation(let activation): activation
        case .batchNorm(let norm): norm
        case .scale(let scale): scale
        case .bias(let bias): bias
        case .lrn(let lrn): lrn
        case .add(let constant): Elementwise(kind: .add, constant: constant)
        case .multiply(let constant): Elementwise(kind: .multiply, constant: constant)
        case .maximum: Elementwise(kind: .maximum)
        case .minimum: Elementwise(kind: .minimum)
        case .average: Elementwise(kind: .average)
        case .unary(let unary): unary
        case .l2Normalize(let epsilon): L2Normalize(epsilon: epsilon)
        case .flatten(let order): Flatten(order: order)
        case .padding(let padding): padding
        case .crop(let crop): crop
        case .split: Split()
        case .upsample(let upsample): upsample
        case .defined(let op): op.definition
        }
    }

    /// A short name for messages and summaries ("convolution", "pooling", ...).
    public var kindName: String { definition.kindName }

    /// The operation's weight tensors with their names (as Core ML's
    /// fields call them) and shapes.
    public var weightTensors: [NamedWeights] { definition.weightTensors }
}

/// The order in which flatten and reshape read a [C, H, W] tensor.
public enum ChannelOrder: Equatable, Sendable {
    case channelFirst
    case channelLast
}

