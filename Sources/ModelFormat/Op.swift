/// What a node computes, with typed attributes. The set mirrors the layers
/// Core ML's NeuralNetwork format can express (specification versions 1-4),
/// since that is the one backend; frontends map onto it, and the runtime
/// executes it. These cases see rank-3 [C, H, W] tensors, except the
/// element-wise ones (add, multiply, maximum, minimum, average, unary,
/// activation), which take any rank; `defined` holds the operations whose
/// facts live in one `OpDefinition` type (rank-N ones among them).
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
    /// Softmax over channels.
    case softmax
    /// Stacks the inputs along channels.
    case concat
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
    /// To `targetShape` ([C, H, W]), reading in the given order.
    case reshape(targetShape: [Int], order: ChannelOrder)
    /// Reorders the axes of [Seq, C, H, W]; `axes` is a permutation of 0...3.
    case permute(axes: [Int])
    case padding(Padding)
    case crop(Crop)
    case slice(Slice)
    /// Splits channels evenly into one tensor per output.
    case split
    case reduce(Reduce)
    case upsample(Upsample)
    /// A constant tensor of `shape` [C, H, W].
    case constant(shape: [Int], data: Weights)
    /// An operation defined in one place (`OpDefinition`): matmul, softmax
    /// along an axis, transpose, GELU, ...
    case defined(DefinedOp)

    /// A short name for messages and summaries ("convolution", "pooling", ...).
    public var kindName: String {
        switch self {
        case .convolution(let c): c.isDeconvolution ? "deconvolution" : "convolution"
        case .pooling: "pooling"
        case .innerProduct: "innerProduct"
        case .activation: "activation"
        case .batchNorm: "batchNorm"
        case .scale: "scale"
        case .bias: "bias"
        case .lrn: "lrn"
        case .softmax: "softmax"
        case .concat: "concat"
        case .add: "add"
        case .multiply: "multiply"
        case .maximum: "maximum"
        case .minimum: "minimum"
        case .average: "average"
        case .unary: "unary"
        case .l2Normalize: "l2Normalize"
        case .flatten: "flatten"
        case .reshape: "reshape"
        case .permute: "permute"
        case .padding: "padding"
        case .crop: "crop"
        case .slice: "slice"
        case .split: "split"
        case .reduce: "reduce"
        case .upsample: "upsample"
        case .constant: "constant"
        case .defined(let op): op.definition.kindName
        }
    }
}

extension Op {
    /// Whether the operation takes tensors of any rank (the rest of the
    /// NeuralNetwork-era cases take [C, H, W]).
    public var takesAnyRank: Bool {
        switch self {
        case .add, .multiply, .maximum, .minimum, .average, .unary, .defined: true
        case .activation(let activation): !activation.isPerChannel
        default: false
        }
    }
}

extension Activation {
    /// Whether it holds one parameter per channel (PReLU, parametric softplus).
    public var isPerChannel: Bool {
        switch self {
        case .prelu, .parametricSoftplus: true
        default: false
        }
    }
}

/// The order in which flatten and reshape read a [C, H, W] tensor.
public enum ChannelOrder: Equatable, Sendable {
    case channelFirst
    case channelLast
}

/// A 2-D convolution or deconvolution (transposed convolution).
///
/// Weights are [outputChannels, kernelChannels, kH, kW] for a convolution,
/// where kernelChannels = input channels / groups, and
/// [kernelChannels, outputChannels / groups, kH, kW] for a deconvolution,
/// where kernelChannels = all the input channels (as coremltools writes it
/// and Caffe stores Deconvolution weights).
public struct Convolution: Equatable, Sendable {
    public var outputChannels: Int
    public var kernelChannels: Int
    public var groups: Int
    public var kernel: Size2
    public var stride: Size2
    public var dilation: Size2
    public var padding: WindowPadding
    public var isDeconvolution: Bool
    /// Output [H, W] of a deconvolution, when fixed; empty otherwise.
    public var outputShape: [Int]
    public var weights: Weights
    public var bias: Weights?

    public init(outputChannels: Int, kernelChannels: Int, groups: Int = 1, kernel: Size2, stride: Size2 = Size2(square: 1),
                dilation: Size2 = Size2(square: 1), padding: WindowPadding = .explicit(.zero), isDeconvolution: Bool = false,
                outputShape: [Int] = [], weights: Weights, bias: Weights? = nil) {
        self.outputChannels = outputChannels
        self.kernelChannels = kernelChannels
        self.groups = groups
        self.kernel = kernel
        self.stride = stride
        self.dilation = dilation
        self.padding = padding
        self.isDeconvolution = isDeconvolution
        self.outputShape = outputShape
        self.weights = weights
        self.bias = bias
    }

    /// Number of weight values the attributes call for (nil when the
    /// product overflows: attributes from a hostile file).
    public var expectedWeightCount: Int? {
        isDeconvolution
            ? [kernelChannels, outputChannels / max(groups, 1), kernel.height, kernel.width].checkedProduct
            : [outputChannels, kernelChannels, kernel.height, kernel.width].checkedProduct
    }
}

public struct Pooling: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case max, average, l2 }
    public var kind: Kind
    public var kernel: Size2
    public var stride: Size2
    public var padding: WindowPadding
    /// Average pooling divides by the valid (unpadded) pixels only.
    public var excludePaddingFromAverage: Bool
    /// Pools each channel's whole map to 1x1, ignoring kernel and stride.
    public var global: Bool

    public init(kind: Kind, kernel: Size2, stride: Size2, padding: WindowPadding = .explicit(.zero),
                excludePaddingFromAverage: Bool = false, global: Bool = false) {
        self.kind = kind
        self.kernel = kernel
        self.stride = stride
        self.padding = padding
        self.excludePaddingFromAverage = excludePaddingFromAverage
        self.global = global
    }
}

/// A fully connected layer over the flattened [C, H, W] input (C*H*W must
/// equal inputChannels). Weights are [outputChannels, inputChannels].
public struct InnerProduct: Equatable, Sendable {
    public var inputChannels: Int
    public var outputChannels: Int
    public var weights: Weights
    public var bias: Weights?

    public init(inputChannels: Int, outputChannels: Int, weights: Weights, bias: Weights? = nil) {
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.weights = weights
        self.bias = bias
    }
}

/// Element-wise activation functions.
public enum Activation: Equatable, Sendable {
    case relu
    /// x if x >= 0 else alpha * x.
    case leakyRelu(alpha: Float)
    /// x if x > alpha else 0.
    case thresholdedRelu(alpha: Float)
    /// Leaky ReLU with one alpha per channel (or one shared).
    case prelu(alpha: Weights)
    case tanh
    /// alpha * tanh(beta * x).
    case scaledTanh(alpha: Float, beta: Float)
    case sigmoid
    /// min(max(alpha * x + beta, 0), 1).
    case sigmoidHard(alpha: Float, beta: Float)
    /// x if x >= 0 else alpha * (exp(x) - 1).
    case elu(alpha: Float)
    case softsign
    case softplus
    /// alpha * log(1 + exp(beta * x)), per channel.
    case parametricSoftplus(alpha: Weights, beta: Weights)
    /// alpha * x + beta.
    case linear(alpha: Float, beta: Float)
    /// min(max(x, min), max); Core ML specification 4.
    case clip(min: Float, max: Float)
}

/// y = gamma * (x - mean) / sqrt(variance + epsilon) + beta, per channel.
public struct BatchNorm: Equatable, Sendable {
    public var channels: Int
    public var epsilon: Float
    public var gamma: Weights
    public var beta: Weights
    public var mean: Weights
    public var variance: Weights
    /// Use the input's own statistics instead of `mean` and `variance`.
    public var computeMeanVar: Bool
    /// With `computeMeanVar`: statistics per channel over H and W.
    public var instanceNormalization: Bool

    public init(channels: Int, epsilon: Float, gamma: Weights, beta: Weights, mean: Weights, variance: Weights,
                computeMeanVar: Bool = false, instanceNormalization: Bool = false) {
        self.channels = channels
        self.epsilon = epsilon
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.computeMeanVar = computeMeanVar
        self.instanceNormalization = instanceNormalization
    }
}

/// y = scale * x (+ bias), broadcasting [C] or [1] or [C, H, W] constants.
public struct Scale: Equatable, Sendable {
    public var shape: [Int]
    public var scale: Weights
    public var biasShape: [Int]
    public var bias: Weights?

    public init(shape: [Int], scale: Weights, biasShape: [Int] = [], bias: Weights? = nil) {
        self.shape = shape
        self.scale = scale
        self.biasShape = biasShape
        self.bias = bias
    }
}

/// y = x + bias, broadcasting [C] or [1] or [C, H, W] constants.
public struct Bias: Equatable, Sendable {
    public var shape: [Int]
    public var bias: Weights

    public init(shape: [Int], bias: Weights) {
        self.shape = shape
        self.bias = bias
    }
}

/// Local response normalization across channels (Core ML's form):
/// `y = x / (k + alpha / localSize * sum_window(x^2))^beta`.
public struct LRN: Equatable, Sendable {
    public var alpha: Float
    public var beta: Float
    public var localSize: Int
    public var k: Float

    public init(alpha: Float, beta: Float, localSize: Int, k: Float) {
        self.alpha = alpha
        self.beta = beta
        self.localSize = localSize
        self.k = k
    }
}

/// Element-wise functions applied to `scale * x + shift`.
public struct Unary: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case sqrt, rsqrt, inverse, power, exp, log, abs, threshold }
    public var kind: Kind
    /// Exponent for `.power`, lower bound for `.threshold`.
    public var alpha: Float
    /// Added before rsqrt, inverse and log, to keep them finite.
    public var epsilon: Float
    public var shift: Float
    public var scale: Float

    public init(kind: Kind, alpha: Float = 0, epsilon: Float = 0, shift: Float = 0, scale: Float = 1) {
        self.kind = kind
        self.alpha = alpha
        self.epsilon = epsilon
        self.shift = shift
        self.scale = scale
    }
}

public struct Padding: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case constant(Float)
        case reflection
        case replication
    }
    public var kind: Kind
    public var edges: Edges

    public init(kind: Kind, edges: Edges) {
        self.kind = kind
        self.edges = edges
    }
}

public enum Crop: Equatable, Sendable {
    /// Removes fixed amounts from each edge.
    case edges(Edges)
    /// Crops the first input to the second input's H and W, starting at
    /// `offset` [top, left].
    case like(offset: [Int])
}

/// Takes `start..<end` with `stride` along one axis. Negative indices count
/// from the axis' end as in Python: `end: -1` stops before the last element
/// (Core ML's SliceLayerParams: "-1 denotes N-1"). Where Core ML computes
/// otherwise, the model is refused (`ShapeInference.checkSliceBounds`): a
/// positive end past the axis, a negative start before a positive end.
public struct Slice: Equatable, Sendable {
    public enum Axis: Equatable, Sendable { case channel, height, width }
    public var axis: Axis
    public var start: Int
    public var end: Int
    public var stride: Int

    public init(axis: Axis, start: Int, end: Int, stride: Int = 1) {
        self.axis = axis
        self.start = start
        self.end = end
        self.stride = stride
    }
}

public struct Reduce: Equatable, Sendable {
    public enum Mode: Equatable, Sendable { case sum, average, product, logSum, sumSquare, l1, l2, max, min, argmax }
    public enum Axes: Equatable, Sendable { case chw, hw, c, h, w }
    public var mode: Mode
    public var axes: Axes
    public var epsilon: Float

    public init(mode: Mode, axes: Axes, epsilon: Float = 1e-6) {
        self.mode = mode
        self.axes = axes
        self.epsilon = epsilon
    }
}

public struct Upsample: Equatable, Sendable {
    public enum Mode: Equatable, Sendable { case nearest, bilinear }
    public var scale: Size2
    public var mode: Mode

    public init(scale: Size2, mode: Mode = .nearest) {
        self.scale = scale
        self.mode = mode
    }
}

extension Op {
    /// The operation's weight tensors with their names (as Core ML's
    /// fields call them) and shapes.
    public var weightTensors: [(name: String, shape: [Int], values: Weights)] {
        switch self {
        case .convolution(let c):
            let shape = c.isDeconvolution
                ? [c.kernelChannels, c.outputChannels / max(c.groups, 1), c.kernel.height, c.kernel.width]
                : [c.outputChannels, c.kernelChannels, c.kernel.height, c.kernel.width]
            return [("weights", shape, c.weights)] + (c.bias.map { [("bias", [$0.count], $0)] } ?? [])
        case .innerProduct(let p):
            return [("weights", [p.outputChannels, p.inputChannels], p.weights)] + (p.bias.map { [("bias", [$0.count], $0)] } ?? [])
        case .batchNorm(let b):
            return [("gamma", [b.gamma.count], b.gamma), ("beta", [b.beta.count], b.beta),
                    ("mean", [b.mean.count], b.mean), ("variance", [b.variance.count], b.variance)]
        case .scale(let s):
            return [("scale", s.shape, s.scale)] + (s.bias.map { [("bias", s.biasShape.isEmpty ? [$0.count] : s.biasShape, $0)] } ?? [])
        case .bias(let b):
            return [("bias", b.shape, b.bias)]
        case .activation(.prelu(let alpha)):
            return [("alpha", [alpha.count], alpha)]
        case .activation(.parametricSoftplus(let alpha, let beta)):
            return [("alpha", [alpha.count], alpha), ("beta", [beta.count], beta)]
        case .constant(let shape, let data):
            return [("data", shape, data)]
        case .defined(let op):
            return op.definition.weightTensors.map { ($0.name, $0.shape, $0.values) }
        default:
            return []
        }
    }
}
