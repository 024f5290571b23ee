/// The families of layers a graph picture colours alike (`GraphDot`): a
/// small fixed palette of fill colours light enough for black text
/// (ColorBrewer's Pastel1), so that a convolution stack, its activations
/// and the reshaping around them tell apart at a glance. The label of every
/// box still names its kind, so a monochrome print loses nothing.
public enum LayerFamily: String, CaseIterable, Sendable {
    case input, convolution, pooling, activation, normalization, elementwise, tensor, innerProduct, output

    /// The fill colour (`#rrggbb`); every one has contrast of 12:1 or more with black.
    public var color: String {
        switch self {
        case .input: "#e5d8bd"
        case .convolution: "#b3cde3"
        case .pooling: "#ccebc5"
        case .activation: "#fed9a6"
        case .normalization: "#decbe4"
        case .elementwise: "#ffffcc"
        case .tensor: "#f2f2f2"
        case .innerProduct: "#fbb4ae"
        case .output: "#fddaec"
        }
    }

    /// The legend's words for the family.
    public var title: String {
        switch self {
        case .input: "input, preprocessing"
        case .convolution: "convolution"
        case .pooling: "pooling, reduction, resampling"
        case .activation: "activation"
        case .normalization: "normalization"
        case .elementwise: "element-wise, scale, bias"
        case .tensor: "reshape, concat, slice, constant"
        case .innerProduct: "inner product, matmul"
        case .output: "softmax, output"
        }
    }

    /// The family of a layer kind: an operation's `kindName`
    /// (`convolution`, `concat`, ...) or a Caffe layer type as a weights
    /// file records it (`Convolution`, `ReLU`, `Eltwise`, ...); nil for a
    /// kind outside the palette (drawn white).
    public init?(kind: String) {
        switch kind.lowercased() {
        case "convolution", "deconvolution", "depthwiseconvolution", "convolutiondepthwise":
            self = .convolution
        case "pooling", "reduce", "upsample", "interp", "resize":
            self = .pooling
        case "activation", "gelu", "relu", "relu6", "prelu", "leakyrelu", "sigmoid", "tanh", "elu", "selu", "bnll",
             "absval", "threshold", "swish", "clip", "softplus", "hardsigmoid", "hardswish", "mish":
            self = .activation
        case "batchnorm", "lrn", "l2normalize", "normalize", "mvn", "layernorm", "instancenorm":
            self = .normalization
        case "add", "multiply", "maximum", "minimum", "average", "unary", "scale", "bias", "eltwise", "power", "exp", "log":
            self = .elementwise
        case "concat", "split", "flatten", "reshape", "padding", "crop", "slice",
             "transpose", "constant", "priorbox", "reorg", "shufflechannel", "dropout":
            self = .tensor
        case "innerproduct", "matmul":
            self = .innerProduct
        case "softmax", "argmax", "detectionoutput":
            self = .output
        default:
            return nil
        }
    }
}
