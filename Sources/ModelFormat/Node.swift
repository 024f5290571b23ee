/// One layer of the graph: an operation reading named tensors and producing
/// named tensors. Tensor names are unique: each is produced by exactly one
/// node or is a model input (frontends rename in-place layers into this form).
public struct Node: Equatable, Sendable {
    public var name: String
    public var operation: Op
    public var inputs: [String]
    public var outputs: [String]

    public init(name: String, operation: Op, inputs: [String], outputs: [String]) {
        self.name = name
        self.operation = operation
        self.inputs = inputs
        self.outputs = outputs
    }

    /// A node with one input and one output tensor named after the node.
    public init(_ name: String, _ operation: Op, input: String) {
        self.init(name: name, operation: operation, inputs: [input], outputs: [name])
    }
}

/// Height and width: of a 2-D window (kernel, stride, dilation), or of an
/// image in pixels.
public struct Size2: Equatable, Sendable {
    public var height: Int
    public var width: Int

    public init(_ height: Int, _ width: Int) {
        self.height = height
        self.width = width
    }

    /// The same value for both axes.
    public init(square: Int) {
        self.init(square, square)
    }
}

/// Amounts added to (or removed from) each edge of a feature map.
public struct Edges: Equatable, Sendable {
    public var top: Int
    public var bottom: Int
    public var left: Int
    public var right: Int

    public init(top: Int = 0, bottom: Int = 0, left: Int = 0, right: Int = 0) {
        self.top = top
        self.bottom = bottom
        self.left = left
        self.right = right
    }

    /// The same amount on every edge.
    public init(all: Int) {
        self.init(top: all, bottom: all, left: all, right: all)
    }

    public static let zero = Edges()
}

/// Padding of a convolution or pooling window.
public enum WindowPadding: Equatable, Sendable {
    /// Explicit amounts; output = floor((in + pads - dilated kernel) / stride) + 1.
    case explicit(Edges)
    /// Output = ceil(in / stride); the odd pixel goes bottom/right unless
    /// `topLeftHeavy`.
    case same(topLeftHeavy: Bool)
    /// Caffe's pooling: symmetric padding [h, w] with the output size
    /// rounded up, so the last window may run past the padded input.
    /// Pooling only.
    case includeLastPixel(Size2)

    /// Each edge's padding for a window of `kernel` (dilated by `dilation`)
    /// at `stride` that makes `output` from `input`: explicit amounts as
    /// they are; `same`'s total need split, the odd pixel top/left when
    /// `topLeftHeavy`; Caffe's rounded-up pooling as its symmetric pads,
    /// the bottom and right grown (or shrunk, never below 0) to reach its
    /// output. The one rule of the runtime and the ML Program writer.
    public func edges(input: Size2, output: Size2, kernel: Size2, stride: Size2, dilation: Size2) -> Edges {
        func needed(_ input: Int, _ output: Int, _ kernel: Int, _ stride: Int, _ dilation: Int) -> Int {
            (output - 1) * stride + (kernel - 1) * dilation + 1 - input
        }
        let height = needed(input.height, output.height, kernel.height, stride.height, dilation.height)
        let width = needed(input.width, output.width, kernel.width, stride.width, dilation.width)
        switch self {
        case .explicit(let edges):
            return edges
        case .same(let topLeftHeavy):
            let (h, w) = (max(height, 0), max(width, 0))
            let (top, left) = topLeftHeavy ? (h - h / 2, w - w / 2) : (h / 2, w / 2)
            return Edges(top: top, bottom: h - top, left: left, right: w - left)
        case .includeLastPixel(let symmetric):
            return Edges(top: symmetric.height, bottom: max(height - symmetric.height, 0), left: symmetric.width, right: max(width - symmetric.width, 0))
        }
    }
}
